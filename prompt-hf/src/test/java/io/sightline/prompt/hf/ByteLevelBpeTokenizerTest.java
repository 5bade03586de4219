package io.sightline.prompt.hf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sightline.prompt.hf.testing.TestModels;
import java.io.InputStream;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The pure-Java byte-level BPE must give DJL's ids: on every golden prompt of the two Qwen models
 * and on randomised strings mixing scripts, emoji, combining marks, whitespace runs, digits,
 * contractions and added tokens. LLaVA (Metaspace / SentencePiece BPE) is refused.
 */
class ByteLevelBpeTokenizerTest {

  private static final List<String> PIECES =
      List.of(
          "<|im_start|>",
          "<|im_end|>",
          "<|image_pad|>",
          "<|im_start",
          "user\n",
          "\n",
          "\n\n",
          "  ",
          "   ",
          "\t",
          " ",
          "Hello",
          " world",
          "don't",
          "I'LL",
          "'s",
          "123456",
          "3.14",
          "你好，世界！",
          "こんにちは",
          "안녕하세요",
          "👩‍👩‍👧‍👦",
          "e\u0301",
          "\u212b",
          "ﬁ",
          "Ａ",
          "\u00a0",
          "\u3000",
          "\u2028",
          "\u0085",
          "\r\n",
          "{\"a\": [1, 2]}",
          "<tool_call>",
          "#",
          "Ġ",
          "ĠĠ",
          "مرحبا",
          "नमस्ते",
          "Привет",
          "ไทย",
          "x",
          "\u0000",
          "...",
          "—",
          "€");

  @Test
  void matchesDjlOnGoldenPromptsAndRandomText() throws Exception {
    Random random = new Random(7);
    ObjectMapper json = new ObjectMapper();
    for (String name : List.of("qwen2_5_vl", "qwen3_vl")) {
      DjlTokenizer djl = TestModels.model(name).tokenizer().orElseThrow();
      ByteLevelBpeTokenizer bpe =
          ByteLevelBpeTokenizer.load(TestModels.dir(name).resolve("tokenizer.json"), djl)
              .orElseThrow();
      JsonNode golden;
      try (InputStream in = getClass().getResourceAsStream("/golden/" + name + ".json")) {
        golden = json.readTree(in);
      }
      for (JsonNode c : golden.get("cases")) {
        if (c.get("kind").asText().equals("chat")) {
          String prompt = c.get("prompt").asText();
          assertThat(bpe.encode(prompt, false))
              .as(name + " " + c.get("name").asText())
              .containsExactly(json.convertValue(c.get("token_ids"), int[].class));
        }
      }
      for (int i = 0; i < 1000; i++) {
        StringBuilder sb = new StringBuilder();
        int parts = 1 + random.nextInt(10);
        for (int k = 0; k < parts; k++) {
          sb.append(PIECES.get(random.nextInt(PIECES.size())));
        }
        String text = sb.toString();
        assertThat(bpe.encode(text, false))
            .as(name + ": " + text)
            .containsExactly(djl.encode(text, false));
      }
    }
  }

  @Test
  void optInThroughTheSystemProperty(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path src = TestModels.dir("qwen2_5_vl");
    for (String f :
        List.of("tokenizer.json", "config.json", "tokenizer_config.json", "chat_template.json")) {
      java.nio.file.Files.copy(src.resolve(f), dir.resolve(f));
    }
    String previous = System.getProperty(HfModel.TOKENIZER_PROPERTY);
    System.setProperty(HfModel.TOKENIZER_PROPERTY, "java");
    try {
      HfModel model = HfModels.load(dir);
      ObjectMapper json = new ObjectMapper();
      JsonNode golden;
      try (InputStream in = getClass().getResourceAsStream("/golden/qwen2_5_vl.json")) {
        golden = json.readTree(in);
      }
      for (JsonNode c : golden.get("cases")) {
        if (c.get("kind").asText().equals("chat")) {
          assertThat(model.exactEncoder().orElseThrow().encodeChat(c.get("request")).tokenIds())
              .as(c.get("name").asText())
              .containsExactly(json.convertValue(c.get("token_ids"), int[].class));
        }
      }
    } finally {
      if (previous == null) {
        System.clearProperty(HfModel.TOKENIZER_PROPERTY);
      } else {
        System.setProperty(HfModel.TOKENIZER_PROPERTY, previous);
      }
    }
  }

  @Test
  void refusesSentencePieceStyleTokenizers() throws Exception {
    DjlTokenizer djl = TestModels.model("llava_1_5").tokenizer().orElseThrow();
    assertThat(
            ByteLevelBpeTokenizer.load(TestModels.dir("llava_1_5").resolve("tokenizer.json"), djl))
        .isEmpty();
  }
}
