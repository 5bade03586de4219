package io.sightline.prompt.hf;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.prompt.hf.testing.TestModels;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The segment cache must give exactly the plain tokenizer's ids: randomised prompts built from
 * added tokens, template-like text, Unicode, whitespace runs and partial special-token lookalikes,
 * encoded twice (cold, then warm from the cache) on all three real tokenizers.
 */
class SegmentCachingTokenizerTest {

  private static final List<String> PIECES =
      List.of(
          "<|im_start|>",
          "<|im_end|>",
          "<|vision_start|>",
          "<|image_pad|>",
          "<|vision_end|>",
          "<image>",
          "<s>",
          "</s>",
          "<|im_start",
          "im_end|>",
          "<",
          "|",
          ">",
          "user\n",
          "assistant\n",
          "system\n",
          "USER: ",
          " ASSISTANT:",
          "\n",
          "\n\n",
          "  ",
          "\t",
          " ",
          "Hello",
          " world",
          "Describe this image.",
          "你好，世界",
          "こんにちは",
          "👩‍👩‍👧",
          "e\u0301",
          "\u00a0",
          "\u3000",
          "123456",
          "don't",
          "{\"a\": 1}",
          "▁",
          "Ġ",
          "\r\n",
          "x");

  @Test
  void identicalToThePlainTokenizerOnRandomPrompts() throws Exception {
    Random random = new Random(20261121L);
    for (String name : TestModels.NAMES) {
      HfModel model = TestModels.model(name);
      DjlTokenizer plain = model.tokenizer().orElseThrow();
      SegmentCachingTokenizer cached =
          SegmentCachingTokenizer.create(
                  plain, TestModels.dir(name).resolve("tokenizer.json"), 1_000_000)
              .orElseThrow();
      for (int i = 0; i < 600; i++) {
        StringBuilder sb = new StringBuilder();
        int parts = 1 + random.nextInt(12);
        for (int k = 0; k < parts; k++) {
          sb.append(PIECES.get(random.nextInt(PIECES.size())));
        }
        String text = sb.toString();
        int[] expected = plain.encode(text, false);
        assertThat(cached.encode(text, false))
            .as(name + " cold: " + text)
            .containsExactly(expected);
        assertThat(cached.encode(text, false))
            .as(name + " warm: " + text)
            .containsExactly(expected);
      }
      assertThat(cached.cachedSegments()).isPositive();
      // Special tokens added by the post-processor bypass the cache.
      assertThat(cached.encode("Hello", true)).containsExactly(plain.encode("Hello", true));
    }
  }

  @Test
  void theModelsUseTheCacheForChat() {
    for (String name : TestModels.NAMES) {
      assertThat(TestModels.model(name).encodingTokenizer().orElseThrow())
          .isInstanceOf(SegmentCachingTokenizer.class);
    }
  }

  @Test
  void refusedWhenDisabled() throws Exception {
    HfModel model = TestModels.model("qwen2_5_vl");
    assertThat(
            SegmentCachingTokenizer.create(
                model.tokenizer().orElseThrow(),
                TestModels.dir("qwen2_5_vl").resolve("tokenizer.json"),
                0))
        .isEmpty();
  }
}
