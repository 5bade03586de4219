package io.sightline.prompt.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sightline.prompt.hf.testing.TestModels;
import io.sightline.routing.prompt.EncodedPrompt;
import io.sightline.routing.prompt.FallbackPromptEncoder;
import io.sightline.routing.prompt.PromptEncodingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HfModelTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String s) throws Exception {
    return JSON.readTree(s);
  }

  @Test
  void loadsTheRealModelDirectories() {
    HfModel qwen25 = TestModels.model("qwen2_5_vl");
    HfModel qwen3 = TestModels.model("qwen3_vl");
    HfModel llava = TestModels.model("llava_1_5");

    assertThat(qwen25.modelType()).contains("qwen2_5_vl");
    assertThat(qwen3.modelType()).contains("qwen3_vl");
    assertThat(llava.modelType()).contains("llava");
    assertThat(qwen25.imagePlaceholderId()).hasValue(151655);
    assertThat(qwen3.imagePlaceholderId()).hasValue(151655);
    assertThat(llava.imagePlaceholderId()).hasValue(32000);
    // The placeholder ids from config.json agree with the tokenizer's vocabulary.
    assertThat(qwen25.tokenizer().orElseThrow().tokenId("<|image_pad|>")).hasValue(151655);
    assertThat(llava.tokenizer().orElseThrow().tokenId("<image>")).hasValue(32000);
    assertThat(llava.tokenizer().orElseThrow().tokenId("not one token")).isEmpty();

    assertThat(llava.specialTokens())
        .containsEntry("bos_token", "<s>")
        .containsEntry("eos_token", "</s>");
    assertThat(qwen25.specialTokens())
        .containsEntry("eos_token", "<|im_end|>")
        .doesNotContainKey("bos_token");
    // Processor template (chat_template.json) wins over tokenizer_config.json's text template.
    assertThat(qwen25.chatTemplate().orElseThrow().source()).contains("<|vision_start|>");
    assertThat(qwen25.promptEncoder().exact()).isTrue();
    assertThat(System.getProperty("ai.djl.offline")).isEqualTo("true");
  }

  @Test
  void modelsAreLoadedOnceEvenUnderConcurrentAccess() throws Exception {
    Path dir = TestModels.dir("llava_1_5");
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<HfModel>> futures = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        futures.add(pool.submit((Callable<HfModel>) () -> HfModels.load(dir)));
      }
      Set<HfModel> distinct = new HashSet<>();
      for (Future<HfModel> f : futures) {
        distinct.add(f.get());
      }
      assertThat(distinct).hasSize(1);
      assertThat(HfModels.load(dir.resolve("..").resolve("llava_1_5")))
          .isSameAs(distinct.iterator().next());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void longPromptsAreNotTruncated() throws Exception {
    // DJL's default truncation would cut this to 512 ids.
    StringBuilder text = new StringBuilder();
    for (int i = 0; text.length() < 40_000; i++) {
      text.append("Sentence number ").append(i).append(" talks about routing and KV caches. ");
    }
    DjlTokenizer tokenizer = TestModels.model("qwen2_5_vl").tokenizer().orElseThrow();
    int[] ids = tokenizer.encode(text.toString(), false);
    assertThat(ids.length).isGreaterThan(8000);
    assertThat(tokenizer.decode(ids)).isEqualTo(text.toString());
  }

  @Test
  void directoryWithoutTokenizerRoutesApproximately(@TempDir Path dir) throws Exception {
    Path src = TestModels.dir("qwen2_5_vl");
    for (String f : List.of("config.json", "tokenizer_config.json", "chat_template.json")) {
      Files.copy(src.resolve(f), dir.resolve(f));
    }
    HfModel model = HfModels.load(dir);
    assertThat(model.hasTokenizer()).isFalse();
    assertThat(model.exactEncoder()).isEmpty();
    assertThat(model.promptEncoder().exact()).isFalse();
    EncodedPrompt p =
        model
            .promptEncoder()
            .encodeChat(
                json(
                    "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\","
                        + "\"image_url\":{\"url\":\"u\"}},{\"type\":\"text\",\"text\":\"hi\"}]}]}"));
    assertThat(p.mode()).isEqualTo(EncodedPrompt.Mode.APPROXIMATE);
    assertThat(p.imagePositions()).hasSize(1);
    assertThat(model.imageTokenEstimator().estimate(28 * 10, 28 * 20)).isEqualTo(200);
  }

  @Test
  void aTemplateThatRaisesFallsBackPerRequestAndIsCounted(@TempDir Path dir) throws Exception {
    Path src = TestModels.dir("qwen2_5_vl");
    Files.copy(src.resolve("tokenizer.json"), dir.resolve("tokenizer.json"));
    Files.copy(src.resolve("config.json"), dir.resolve("config.json"));
    Files.writeString(
        dir.resolve("chat_template.jinja"),
        "{% if messages | length > 1 %}{{ raise_exception('only one message supported') }}"
            + "{% endif %}{% for m in messages %}<|im_start|>{{ m['role'] }}\n"
            + "{{ m['content'][0]['text'] }}<|im_end|>\n{% endfor %}");
    HfModel model = HfModels.load(dir);
    FallbackPromptEncoder encoder = model.promptEncoder();

    EncodedPrompt ok =
        encoder.encodeChat(json("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"));
    assertThat(ok.mode()).isEqualTo(EncodedPrompt.Mode.EXACT);
    assertThat(ok.prompt()).isEqualTo("<|im_start|>user\nhi<|im_end|>\n");
    assertThat(ok.tokenIds()).containsExactly(151644, 872, 198, 6023, 151645, 198);

    EncodedPrompt fallback =
        encoder.encodeChat(
            json(
                "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
                    + "{\"role\":\"assistant\",\"content\":\"yo\"}]}"));
    assertThat(fallback.mode()).isEqualTo(EncodedPrompt.Mode.APPROXIMATE);
    assertThat(fallback.fallbackReason()).contains("only one message supported");
    assertThat(encoder.fallbacks(PromptEncodingException.Kind.TEMPLATE_ERROR)).isEqualTo(1);

    // A malformed request is rejected, not routed approximately.
    assertThatThrownBy(() -> encoder.encodeChat(json("{\"messages\": 3}")))
        .isInstanceOf(PromptEncodingException.class)
        .extracting(e -> ((PromptEncodingException) e).kind())
        .isEqualTo(PromptEncodingException.Kind.INVALID_REQUEST);
    assertThat(encoder.fallbacks()).isEqualTo(1);
  }

  @Test
  void anUnparsableTemplateStillAllowsCompletions(@TempDir Path dir) throws Exception {
    Path src = TestModels.dir("llava_1_5");
    Files.copy(src.resolve("tokenizer.json"), dir.resolve("tokenizer.json"));
    Files.writeString(dir.resolve("chat_template.jinja"), "{% for m in messages %}never closed");
    HfModel model = HfModels.load(dir);
    assertThat(model.chatTemplate()).isEmpty();
    assertThat(model.chatTemplateError()).isPresent();
    EncodedPrompt chat =
        model
            .promptEncoder()
            .encodeChat(json("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"));
    assertThat(chat.mode()).isEqualTo(EncodedPrompt.Mode.APPROXIMATE);
    EncodedPrompt completion =
        model.promptEncoder().encodeCompletion(json("{\"prompt\":\"Hello\"}"));
    assertThat(completion.mode()).isEqualTo(EncodedPrompt.Mode.EXACT);
    assertThat(completion.tokenIds()).containsExactly(1, 15043); // <s> ▁Hello
  }

  @Test
  void badDirectoriesAreClearErrors(@TempDir Path dir) throws Exception {
    assertThatThrownBy(() -> HfModels.load(dir.resolve("missing")))
        .isInstanceOf(HfModelException.class)
        .hasMessageContaining("not a model directory");
    Files.writeString(dir.resolve("config.json"), "{ not json");
    assertThatThrownBy(() -> HfModels.load(dir))
        .isInstanceOf(HfModelException.class)
        .hasMessageContaining("invalid JSON");
    // A failed load is not cached: fixing the file makes the directory loadable.
    Files.writeString(dir.resolve("config.json"), "{\"model_type\": \"x\"}");
    assertThat(HfModels.load(dir).modelType()).contains("x");
  }
}
