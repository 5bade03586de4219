package io.sightline.routing.prompt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sightline.routing.expansion.ExpansionException;
import io.sightline.routing.expansion.MmScheme;
import io.sightline.routing.multimodal.MmHashes;
import io.sightline.routing.multimodal.spec.ModelProcessorSpec;
import io.sightline.routing.multimodal.spec.VlmFamily;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class PromptExpansionTest {

  /** A spec whose image token count is width / 10 (placeholder 77). */
  static final ModelProcessorSpec SPEC =
      new ModelProcessorSpec() {
        @Override
        public VlmFamily family() {
          return VlmFamily.QWEN2_VL;
        }

        @Override
        public int placeholderTokenId() {
          return 77;
        }

        @Override
        public String placeholderToken() {
          return "<|image_pad|>";
        }

        @Override
        public OptionalInt bosTokenId() {
          return OptionalInt.empty();
        }

        @Override
        public int numImageTokens(int width, int height) {
          return width / 10;
        }
      };

  private static EncodedPrompt exact(int... ids) {
    return new EncodedPrompt("p", ids, 1, new int[0], EncodedPrompt.Mode.EXACT, null);
  }

  @Test
  void exactPromptsExpandWithTheSpec() throws Exception {
    var img = new PromptExpansion.Image(42L, 30, 5);
    int[] out =
        PromptExpansion.expand(
                exact(1, 77, 2), Optional.of(SPEC), null, List.of(img), MmScheme.GEN1)
            .tokenIds();
    assertThat(out).containsExactly(1, 77, 77, 77, 2);
    int pad = MmHashes.padValue(42L);
    assertThat(
            PromptExpansion.expand(
                    exact(1, 77, 2), Optional.of(SPEC), null, List.of(img), MmScheme.GEN2)
                .tokenIds())
        .containsExactly(1, pad, pad, pad, 2);
  }

  @Test
  void approximatePromptsExpandTheMarkerByTheEstimate() throws Exception {
    EncodedPrompt approx =
        new EncodedPrompt(
            "t",
            new int[] {5, ApproximateEncoder.IMAGE_MARKER, 6},
            1,
            new int[] {1},
            EncodedPrompt.Mode.APPROXIMATE,
            null);
    int[] out =
        PromptExpansion.expand(
                approx,
                Optional.of(SPEC),
                ImageTokenEstimator.fixed(2),
                List.of(new PromptExpansion.Image(1L, 640, 480)),
                MmScheme.GEN1)
            .tokenIds();
    assertThat(out)
        .containsExactly(5, ApproximateEncoder.IMAGE_MARKER, ApproximateEncoder.IMAGE_MARKER, 6);
  }

  @Test
  void textOnlyWithoutSpecOrScheme() throws Exception {
    var img = List.of(new PromptExpansion.Image(1L, 30, 5));
    assertThat(
            PromptExpansion.expand(exact(1, 77, 2), Optional.empty(), null, img, MmScheme.GEN1)
                .tokenIds())
        .containsExactly(1, 77, 2);
    assertThat(
            PromptExpansion.expand(exact(1, 77, 2), Optional.of(SPEC), null, img, MmScheme.OFF)
                .tokenIds())
        .containsExactly(1, 77, 2);
  }

  @Test
  void placeholderCountMustMatchImages() {
    var two = List.of(new PromptExpansion.Image(1L, 30, 5), new PromptExpansion.Image(2L, 30, 5));
    assertThatThrownBy(
            () ->
                PromptExpansion.expand(
                    exact(1, 77, 2), Optional.of(SPEC), null, two, MmScheme.GEN1))
        .isInstanceOf(ExpansionException.class);
  }
}
