package io.sightline.routing.prompt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Approximate, templated and fallback encoders with small in-test template/tokenizer doubles. */
class EncodersTest {

  private final ObjectMapper json = new ObjectMapper();

  private JsonNode body(String s) throws Exception {
    return json.readTree(s);
  }

  /** A byte-per-token tokenizer: id = UTF-8 byte, "<img>" = 1000, optional BOS 999. */
  static final class ByteTokenizer implements TokenizerSpi {
    @Override
    public int[] encode(String text, boolean addSpecialTokens) {
      List<Integer> ids = new ArrayList<>();
      if (addSpecialTokens) {
        ids.add(999);
      }
      String[] pieces = text.split("<img>", -1);
      for (int i = 0; i < pieces.length; i++) {
        if (i > 0) {
          ids.add(1000);
        }
        for (byte b : pieces[i].getBytes(StandardCharsets.UTF_8)) {
          ids.add(b & 0xFF);
        }
      }
      return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    @Override
    public String decode(int[] ids) {
      return Arrays.toString(ids);
    }

    @Override
    public OptionalInt tokenId(String token) {
      return token.equals("<img>") ? OptionalInt.of(1000) : OptionalInt.empty();
    }
  }

  /** role: text-or-<img> per part; a generation prompt marker; kwargs echoed. */
  static final ChatTemplate TEMPLATE =
      context -> {
        StringBuilder sb = new StringBuilder();
        for (Object m : (List<?>) context.get("messages")) {
          Map<?, ?> msg = (Map<?, ?>) m;
          sb.append(msg.get("role")).append(':');
          Object content = msg.get("content");
          if (content instanceof String s) {
            sb.append(s);
          } else {
            for (Object p : (List<?>) content) {
              Map<?, ?> part = (Map<?, ?>) p;
              sb.append("image".equals(part.get("type")) ? "<img>" : part.get("text"));
            }
          }
          sb.append('\n');
        }
        if (Boolean.TRUE.equals(context.get("add_generation_prompt"))) {
          sb.append("assistant:");
        }
        if (context.get("flavour") != null) {
          sb.append('[').append(context.get("flavour")).append(']');
        }
        sb.append(context.getOrDefault("bos_token", ""));
        return sb.toString();
      };

  private final TemplatedPromptEncoder templated =
      new TemplatedPromptEncoder(
          TEMPLATE, new ByteTokenizer(), Map.of("bos_token", "B"), OptionalInt.of(1000));

  @Test
  void templatedChatPassesKwargsAndFindsPlaceholders() throws Exception {
    EncodedPrompt p =
        templated.encodeChat(
            body(
                """
                {"messages":[{"role":"user","content":[{"type":"text","text":"a"},
                  {"type":"image_url","image_url":{"url":"x"}},{"type":"image_url","image_url":{"url":"y"}}]}],
                 "chat_template_kwargs":{"flavour":"k"}}"""));
    assertThat(p.prompt()).isEqualTo("user:a<img><img>\nassistant:[k]B");
    assertThat(p.mode()).isEqualTo(EncodedPrompt.Mode.EXACT);
    assertThat(p.numImages()).isEqualTo(2);
    assertThat(p.imagePositions()).containsExactly(6, 7);
    assertThat(p.tokenIds()[0]).isEqualTo('u'); // chat: no special tokens added
  }

  @Test
  void addGenerationPromptAndContinueFinalMessage() throws Exception {
    EncodedPrompt noGen =
        templated.encodeChat(
            body(
                "{\"add_generation_prompt\":false,\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}"));
    assertThat(noGen.prompt()).isEqualTo("user:q\nB");
    EncodedPrompt cont =
        templated.encodeChat(
            body(
                """
                {"continue_final_message":true,"add_generation_prompt":false,
                 "messages":[{"role":"user","content":"q"},{"role":"assistant","content":"The answer is "}]}"""));
    // Cut right after the final message's text (trailing space kept: the template preserved it).
    assertThat(cont.prompt()).isEqualTo("user:q\nassistant:The answer is ");
    assertThatThrownBy(
            () ->
                templated.encodeChat(
                    body(
                        "{\"continue_final_message\":true,\"add_generation_prompt\":true,"
                            + "\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}")))
        .isInstanceOf(PromptEncodingException.class);
  }

  @Test
  void requestTemplatesAreNotRenderedAndReservedKwargsRejected() throws Exception {
    assertThatThrownBy(
            () ->
                templated.encodeChat(
                    body(
                        "{\"chat_template\":\"{{ 1 }}\","
                            + "\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}")))
        .isInstanceOf(PromptEncodingException.class)
        .extracting(e -> ((PromptEncodingException) e).kind())
        .isEqualTo(PromptEncodingException.Kind.TEMPLATE_ERROR);
    assertThatThrownBy(
            () ->
                templated.encodeChat(
                    body(
                        "{\"chat_template_kwargs\":{\"tokenize\":true},"
                            + "\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}")))
        .isInstanceOf(PromptEncodingException.class)
        .extracting(e -> ((PromptEncodingException) e).kind())
        .isEqualTo(PromptEncodingException.Kind.INVALID_REQUEST);
  }

  @Test
  void completionsAcceptTextAndIds() throws Exception {
    assertThat(templated.encodeCompletion(body("{\"prompt\":\"ab\"}")).tokenIds())
        .containsExactly(999, 'a', 'b');
    assertThat(
            templated
                .encodeCompletion(body("{\"prompt\":\"ab\",\"add_special_tokens\":false}"))
                .tokenIds())
        .containsExactly('a', 'b');
    assertThat(templated.encodeCompletion(body("{\"prompt\":[[5,1000,7]]}")).imagePositions())
        .containsExactly(1);
    assertThat(templated.encodeCompletion(body("{\"prompt\":[\"ab\"]}")).prompt()).isEqualTo("ab");
    for (String bad :
        List.of(
            "{}",
            "{\"prompt\":5}",
            "{\"prompt\":[]}",
            "{\"prompt\":[\"a\",\"b\"]}",
            "{\"prompt\":[1,-2]}",
            "{\"prompt\":[1.5]}",
            "{\"prompt\":[[]]}")) {
      assertThatThrownBy(() -> templated.encodeCompletion(body(bad)))
          .as(bad)
          .isInstanceOf(PromptEncodingException.class);
    }
  }

  @Test
  void approximateEncoderPacksFourBytesPerTokenAndMarksImages() throws Exception {
    ApproximateEncoder approx = new ApproximateEncoder();
    EncodedPrompt p =
        approx.encodeChat(
            body(
                """
                {"messages":[{"role":"user","content":[{"type":"text","text":"abcde"},
                  {"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"f"}]}]}"""));
    // "<|user|>\n" (9 bytes) + "abcde" = 14 bytes → padded to 16 → marker at word 4.
    assertThat(p.mode()).isEqualTo(EncodedPrompt.Mode.APPROXIMATE);
    assertThat(p.imagePositions()).containsExactly(4);
    assertThat(p.tokenIds()[4]).isEqualTo(ApproximateEncoder.IMAGE_MARKER);
    assertThat(p.tokenIds()[0]).isEqualTo('<' | '|' << 8 | 'u' << 16 | 's' << 24);
    assertThat(p.numImages()).isEqualTo(1);
    // "f\n" after the marker → one zero-padded word.
    assertThat(p.tokenIds()).hasSize(6);
    assertThat(p.tokenIds()[5]).isEqualTo('f' | '\n' << 8);
  }

  @Test
  void approximatePrefixesAreStableAcrossTurns() throws Exception {
    ApproximateEncoder approx = new ApproximateEncoder();
    int[] one =
        approx
            .encodeChat(
                body(
                    "{\"messages\":[{\"role\":\"user\",\"content\":\"What is a KV cache, briefly?\"}]}"))
            .tokenIds();
    int[] two =
        approx
            .encodeChat(
                body(
                    """
                    {"messages":[{"role":"user","content":"What is a KV cache, briefly?"},
                      {"role":"assistant","content":"Stored attention keys and values."},
                      {"role":"user","content":"Thanks"}]}"""))
            .tokenIds();
    // All full words of the first conversation are a prefix of the second.
    int full = one.length - 1;
    assertThat(Arrays.copyOf(two, full)).containsExactly(Arrays.copyOf(one, full));
    // Ids given to a completion are exact even without a tokenizer.
    assertThat(approx.encodeCompletion(body("{\"prompt\":[1,2,3]}")).mode())
        .isEqualTo(EncodedPrompt.Mode.EXACT);
  }

  @Test
  void fallbackCountsTemplateFailuresButRejectsBadRequests() throws Exception {
    ChatTemplate failing =
        ctx -> {
          throw new PromptEncodingException(PromptEncodingException.Kind.TEMPLATE_ERROR, "boom");
        };
    List<String> seen = new ArrayList<>();
    FallbackPromptEncoder encoder =
        new FallbackPromptEncoder(
            new TemplatedPromptEncoder(failing, new ByteTokenizer(), Map.of(), OptionalInt.empty()),
            new ApproximateEncoder(),
            (req, e) -> seen.add(e.getMessage()));
    EncodedPrompt p =
        encoder.encodeChat(body("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"));
    assertThat(p.mode()).isEqualTo(EncodedPrompt.Mode.APPROXIMATE);
    assertThat(p.fallbackReason()).isEqualTo("TEMPLATE_ERROR: boom");
    assertThat(encoder.fallbacks(PromptEncodingException.Kind.TEMPLATE_ERROR)).isEqualTo(1);
    assertThat(seen).containsExactly("boom");
    assertThatThrownBy(() -> encoder.encodeChat(body("{\"messages\":\"no\"}")))
        .isInstanceOf(PromptEncodingException.class);
    assertThat(encoder.fallbacks()).isEqualTo(1);
    // Completions still go through the exact path.
    assertThat(encoder.encodeCompletion(body("{\"prompt\":\"a\"}")).mode())
        .isEqualTo(EncodedPrompt.Mode.EXACT);
  }

  @Test
  void imageTokenEstimates() {
    assertThat(ImageTokenEstimator.dynamic(784).estimate(280, 560)).isEqualTo(200);
    assertThat(ImageTokenEstimator.dynamic(1024).estimate(33, 32)).isEqualTo(2); // ceil
    assertThat(ImageTokenEstimator.forFamily("qwen3_vl").estimate(320, 320)).isEqualTo(100);
    assertThat(ImageTokenEstimator.forFamily("llava").estimate(1, 1)).isEqualTo(576);
    assertThat(ImageTokenEstimator.forFamily("unknown").estimateUnknown()).isEqualTo(225);
    assertThatThrownBy(() -> ImageTokenEstimator.dynamic(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ImageTokenEstimator.dynamic(784).estimate(0, 5))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
