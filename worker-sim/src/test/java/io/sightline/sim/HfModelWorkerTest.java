package io.sightline.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.prompt.hf.HfModels;
import io.sightline.prompt.hf.testing.TestModels;
import io.sightline.routing.multimodal.spec.ModelProcessorSpec;
import io.sightline.routing.multimodal.spec.ProcessorSpecs;
import io.sightline.sim.cache.PrefixCache;
import io.sightline.sim.engine.TimingModel;
import java.awt.Color;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * A worker loaded from a real model directory (Qwen2.5-VL-7B-Instruct's tokenizer and chat
 * template): prompts are tokenized exactly and each image expands to the processor's count.
 */
class HfModelWorkerTest {

  @Test
  void tokenizesWithTheChatTemplateAndExpandsImagesLikeTheProcessor() throws Exception {
    Path model = TestModels.dir("qwen2_5_vl");
    ModelProcessorSpec spec = ProcessorSpecs.fromModelDirectory(model).orElseThrow();
    String image = TestImages.pngDataUri(448, 448, Color.MAGENTA);
    ObjectNode body = SimClient.chat("qwen", "What is shown here?", 2, image);
    int[] unexpanded = HfModels.load(model).strictEncoder().encodeChat(body).tokenIds();
    int imageTokens = spec.numImageTokens(448, 448);
    assertThat(imageTokens).isEqualTo(256); // (448/14)^2 patches, merged 2x2

    try (SimulatedWorker w =
        SimulatedWorker.start(
            SimOptions.defaults()
                .withModelDir(model)
                .withServedModelName("qwen")
                .withHashSeed("0")
                .withZmqPorts(-1, -1)
                .withTiming(TimingModel.DEFAULT.withSpeedup(Double.POSITIVE_INFINITY)))) {
      JsonNode first = SimClient.post(w.baseUrl() + "/v1/chat/completions", body).json();
      int prompt = first.at("/usage/prompt_tokens").asInt();
      assertThat(prompt).isEqualTo(unexpanded.length - 1 + imageTokens);

      // The cached blocks hold the real ids: <|vision_start|> then 256 x <|image_pad|>.
      int[] cachedIds =
          w.cache().snapshot().stream()
              .sorted((a, b) -> Integer.compare(a.physicalId(), b.physicalId()))
              .flatMapToInt(b -> Arrays.stream(b.spec().tokens()))
              .toArray();
      long pads = Arrays.stream(cachedIds).filter(t -> t == spec.placeholderTokenId()).count();
      assertThat(pads).isEqualTo(256);
      assertThat(cachedIds).contains(151652, 151653); // vision start / end

      JsonNode second = SimClient.post(w.baseUrl() + "/v1/chat/completions", body).json();
      assertThat(second.at("/usage/prompt_tokens_details/cached_tokens").asInt())
          .isEqualTo((prompt - 1) / 16 * 16);
      for (PrefixCache.CachedBlock b : w.cache().snapshot()) {
        assertThat(b.spec().tokens()).hasSize(16);
      }
    }
  }
}
