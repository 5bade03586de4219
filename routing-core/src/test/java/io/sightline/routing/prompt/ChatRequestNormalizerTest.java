package io.sightline.routing.prompt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** vLLM's message normalisation (vllm/entrypoints/chat_utils.py, "openai" content format). */
class ChatRequestNormalizerTest {

  private final ChatRequestNormalizer normalizer = new ChatRequestNormalizer();
  private final ObjectMapper json = new ObjectMapper();

  private ChatRequestNormalizer.Normalized normalize(String body) throws Exception {
    return normalizer.normalize(json.readTree(body));
  }

  @Test
  void stringContentBecomesOneTextPartAndNullBecomesEmpty() throws Exception {
    var n =
        normalize(
            """
            {"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null}]}""");
    assertThat(n.messages())
        .containsExactly(
            Map.of("role", "user", "content", List.of(Map.of("type", "text", "text", "hi"))),
            Map.of("role", "assistant", "content", List.of()));
    assertThat(n.tools()).isNull();
    assertThat(n.numImages()).isZero();
  }

  @Test
  void mediaPartsBecomeModalityMarkersAndAreCounted() throws Exception {
    var n =
        normalize(
            """
            {"messages":[{"role":"user","content":[
              {"type":"image_url","image_url":{"url":"a"},"uuid":"x"},
              {"type":"input_image","image_url":"b"},
              {"image_url":{"url":"c"}},
              {"type":"video_url","video_url":{"url":"v"}},
              {"type":"input_audio","input_audio":{"data":"","format":"wav"}},
              {"type":"text","text":null},
              {"type":"refusal","refusal":"no"},
              "plain string part"]}]}""");
    assertThat(n.numImages()).isEqualTo(3);
    assertThat(((Map<?, ?>) n.messages().get(0)).get("content"))
        .isEqualTo(
            List.of(
                Map.of("type", "image"),
                Map.of("type", "image"),
                Map.of("type", "image"),
                Map.of("type", "video"),
                Map.of("type", "audio"),
                Map.of("type", "text", "text", "no"),
                Map.of("type", "text", "text", "plain string part")));
  }

  @Test
  void toolCallArgumentsAreParsedAndToolTextsJoined() throws Exception {
    var n =
        normalize(
            """
            {"messages":[
              {"role":"assistant","content":"","reasoning":"think","tool_calls":[
                {"id":"1","type":"function","function":{"name":"f","arguments":"{\\"a\\": [1, 2.5]}"}},
                {"id":"2","type":"function","function":{"name":"g","arguments":"{broken"}},
                {"id":"3","type":"function","function":{"name":"h","arguments":null}}]},
              {"role":"tool","tool_call_id":"1","content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]},
              {"role":"assistant","content":"done","tool_calls":[]}]}""");
    Map<?, ?> assistant = (Map<?, ?>) n.messages().get(0);
    List<?> calls = (List<?>) assistant.get("tool_calls");
    assertThat(((Map<?, ?>) ((Map<?, ?>) calls.get(0)).get("function")).get("arguments"))
        .isEqualTo(Map.of("a", List.of(1L, 2.5)));
    assertThat(((Map<?, ?>) ((Map<?, ?>) calls.get(1)).get("function")).get("arguments"))
        .isEqualTo(Map.of());
    assertThat(((Map<?, ?>) ((Map<?, ?>) calls.get(2)).get("function")).get("arguments"))
        .isEqualTo(Map.of());
    assertThat(assistant.get("reasoning_content")).isEqualTo("think");
    Map<?, ?> tool = (Map<?, ?>) n.messages().get(1);
    assertThat(tool.get("content")).isEqualTo("x\ny");
    assertThat(tool.get("tool_call_id")).isEqualTo("1");
    // An empty tool_calls list is dropped so templates take the plain assistant path.
    assertThat(((Map<?, ?>) n.messages().get(2)).containsKey("tool_calls")).isFalse();
  }

  @Test
  void toolsAreDumpedLikePydantic() throws Exception {
    var n =
        normalize(
            """
            {"messages":[{"role":"user","content":"x"}],
             "tools":[{"function":{"parameters":{"type":"object"},"name":"f","strict":true}}]}""");
    Map<?, ?> tool = (Map<?, ?>) n.tools().get(0);
    assertThat(tool.keySet().stream().map(Object::toString).toList())
        .containsExactly("type", "function");
    assertThat(tool.get("type")).isEqualTo("function");
    Map<?, ?> fn = (Map<?, ?>) tool.get("function");
    // Declared fields first (name, description, parameters), then extras in request order.
    assertThat(fn.keySet().stream().map(Object::toString).toList())
        .containsExactly("name", "description", "parameters", "strict");
    assertThat(fn.get("description")).isNull();
  }

  @Test
  void malformedRequestsAreInvalidRequestErrors() {
    for (String bad :
        List.of(
            "[]",
            "{}",
            "{\"messages\":[]}",
            "{\"messages\":[1]}",
            "{\"messages\":[{\"content\":\"x\"}]}",
            "{\"messages\":[{\"role\":\"user\",\"content\":5}]}",
            "{\"messages\":[{\"role\":\"user\",\"content\":[{\"foo\":1}]}]}",
            "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"mystery\"}]}]}",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"tools\":[{\"function\":{}}]}")) {
      assertThatThrownBy(() -> normalize(bad))
          .as(bad)
          .isInstanceOf(PromptEncodingException.class)
          .extracting(e -> ((PromptEncodingException) e).kind())
          .isEqualTo(PromptEncodingException.Kind.INVALID_REQUEST);
    }
  }
}
