package io.sightline.prompt.hf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sightline.prompt.hf.testing.TestModels;
import io.sightline.routing.prompt.EncodedPrompt;
import io.sightline.routing.prompt.TemplatedPromptEncoder;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rendered prompts and token ids for the real Qwen2.5-VL, Qwen3-VL and LLaVA-1.5 files must equal
 * the independent reference ({@code src/test/reference/generate.mjs}: @huggingface/jinja +
 *
 * @huggingface/tokenizers, with vLLM's message normalisation re-implemented there), byte for byte
 *     and id for id. The OpenAI request goes in raw, so normalisation, template and tokenizer are
 *     all under test.
 */
class GoldenPromptTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  static Stream<Arguments> cases() throws IOException {
    List<Arguments> out = new ArrayList<>();
    for (String model : TestModels.NAMES) {
      for (JsonNode c : golden(model).get("cases")) {
        if (!c.has("reference_error")) {
          out.add(Arguments.of(model, c.get("name").asText(), c));
        }
      }
    }
    return out.stream();
  }

  static JsonNode golden(String model) throws IOException {
    try (InputStream in =
        GoldenPromptTest.class.getResourceAsStream("/golden/" + model + ".json")) {
      return JSON.readTree(in);
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void matchesReference(String model, String name, JsonNode golden) throws Exception {
    HfModel hf = TestModels.model(model);
    TemplatedPromptEncoder encoder = hf.exactEncoder().orElseThrow();
    JsonNode request = golden.get("request");
    EncodedPrompt encoded =
        golden.get("kind").asText().equals("chat")
            ? encoder.encodeChat(request)
            : encoder.encodeCompletion(request);

    assertThat(encoded.mode()).isEqualTo(EncodedPrompt.Mode.EXACT);
    assertThat(encoded.prompt()).isEqualTo(golden.get("prompt").asText());
    int[] expected = JSON.convertValue(golden.get("token_ids"), int[].class);
    assertThat(encoded.tokenIds()).containsExactly(expected);

    // Every image in the request shows up as exactly one placeholder, in order.
    int placeholder = hf.imagePlaceholderId().orElseThrow();
    long placeholders = java.util.Arrays.stream(expected).filter(id -> id == placeholder).count();
    assertThat(encoded.imagePositions()).hasSize((int) placeholders);
    for (int position : encoded.imagePositions()) {
      assertThat(expected[position]).isEqualTo(placeholder);
    }
    if (golden.get("kind").asText().equals("chat")) {
      assertThat(encoded.numImages()).isEqualTo((int) placeholders);
    }
  }

  /** One encoder per model is shared by all request threads: results must not interfere. */
  @Test
  void concurrentEncodingGivesTheSameIds() throws Exception {
    List<Arguments> all = cases().toList();
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(6);
    try {
      List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
      for (int round = 0; round < 5; round++) {
        for (Arguments a : all) {
          Object[] args = a.get();
          futures.add(
              pool.submit(
                  () -> {
                    matchesReference((String) args[0], (String) args[1], (JsonNode) args[2]);
                    return null;
                  }));
        }
      }
      for (java.util.concurrent.Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void everyModelHasEveryCase() throws IOException {
    for (String model : TestModels.NAMES) {
      assertThat(golden(model).get("cases")).hasSize(13);
    }
  }
}
