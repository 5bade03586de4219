package io.sightline.prompt.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sightline.prompt.hf.testing.TestModels;
import io.sightline.routing.prompt.PromptEncodingException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Jinja features Hugging Face templates use, checked against what Python's Jinja2 (in the
 * transformers environment: trim_blocks, lstrip_blocks, tojson, raise_exception) renders. Expected
 * strings are Jinja2 semantics worked out by hand from its documentation and lexer rules.
 */
class JinjaCompatibilityTest {

  private static String render(String template, Map<String, Object> vars)
      throws PromptEncodingException {
    return JinjaChatTemplate.parse(template).render(vars);
  }

  private static String render(String template) throws PromptEncodingException {
    return render(template, Map.of());
  }

  @Test
  void pythonStringMethods() throws Exception {
    Map<String, Object> v = Map.of("s", "  Hello World\n", "r", "user", "t", "a<think>b</think>c");
    assertThat(render("{{ r.upper() }}|{{ r.lower() }}|{{ r.title() }}|{{ r.capitalize() }}", v))
        .isEqualTo("USER|user|User|User");
    assertThat(render("[{{ s.strip() }}][{{ s.lstrip() }}][{{ s.rstrip() }}]", v))
        .isEqualTo("[Hello World][Hello World\n][  Hello World]");
    assertThat(render("{{ s.strip('\\n ') }}", v)).isEqualTo("Hello World");
    assertThat(render("{{ t.split('</think>')[-1] }}|{{ t.split('<think>')[0] }}", v))
        .isEqualTo("c|a");
    // Python split keeps trailing empty strings and splits on a literal, not a regex.
    assertThat(render("{{ 'a.b.'.split('.') | length }}")).isEqualTo("3");
    assertThat(render("{{ ' a  b '.split() | join(',') }}")).isEqualTo("a,b");
    assertThat(render("{{ t.startswith('a<') }} {{ t.endswith(('x','c')) }}", v))
        .isEqualTo("true true");
    assertThat(render("{{ 'a-b-c'.replace('-', '+') }} {{ 'abcabc'.count('b') }}"))
        .isEqualTo("a+b+c 2");
    assertThat(render("{{ ', '.join(['x','y']) }}")).isEqualTo("x, y");
  }

  @Test
  void tojsonIsPythonJsonDumps() throws Exception {
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("city", "Zürich \"centre\"\n");
    args.put("days", 2L);
    args.put("ratio", 0.5);
    args.put("tiny", 1e-7);
    args.put("big", 1e16);
    args.put("hundred", 100.0);
    args.put("flags", List.of(true, false));
    args.put("none", null);
    args.put("empty", Map.of());
    assertThat(render("{{ a | tojson }}", Map.of("a", args)))
        .isEqualTo(
            "{\"city\": \"Zürich \\\"centre\\\"\\n\", \"days\": 2, \"ratio\": 0.5, \"tiny\": 1e-07,"
                + " \"big\": 1e+16, \"hundred\": 100.0, \"flags\": [true, false], \"none\": null,"
                + " \"empty\": {}}");
    assertThat(render("{{ a | tojson(indent=2) }}", Map.of("a", Map.of("k", List.of(1L)))))
        .isEqualTo("{\n  \"k\": [\n    1\n  ]\n}");
  }

  @Test
  void whitespaceControlMatchesJinja2() throws Exception {
    // trim_blocks: the newline after a block tag goes; lstrip_blocks: indentation before it goes.
    assertThat(render("{% if true %}\n    x\n    {% endif %}\ny")).isEqualTo("    x\ny");
    // lstrip_blocks only strips at the start of a line, not after text (Qwen-VL "Picture 1: ").
    assertThat(render("a: {% if true %}b{% endif %}")).isEqualTo("a: b");
    assertThat(render("Picture {{ 1 }}: {% if true %}{% endif %}<x>")).isEqualTo("Picture 1: <x>");
    // {{- / -}} trim on expressions too.
    assertThat(render("a   {{- 'b' -}}   c")).isEqualTo("abc");
    // One trailing newline of the source is dropped, the rest of the output is kept.
    assertThat(render("x\n")).isEqualTo("x");
    assertThat(render("{{ 'assistant\\n' }}\n")).isEqualTo("assistant\n");
    assertThat(render("a\r\nb")).isEqualTo("a\nb");
  }

  @Test
  void namespaceLoopAndTests() throws Exception {
    Map<String, Object> v =
        Map.of("messages", List.of(Map.of("role", "user"), Map.of("role", "assistant")));
    assertThat(
            render(
                "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}"
                    + "{{ loop.index0 }}{{ m['role'] }}{% if loop.last %}!{% endif %}{% endfor %}"
                    + "={{ ns.n }}",
                v))
        .isEqualTo("0user1assistant!=2");
    assertThat(render("{{ 'x' is string }} {{ 'role' in {'role': 1} }}")).isEqualTo("true true");
  }

  @Test
  void generationTagRendersItsBody() throws Exception {
    assertThat(render("A{% generation %}B{{ 'C' }}{% endgeneration %}D")).isEqualTo("ABCD");
  }

  @Test
  void raiseExceptionFailsTheRender() throws Exception {
    JinjaChatTemplate t =
        JinjaChatTemplate.parse(
            "{% if messages | length == 0 %}{{ raise_exception('No messages!') }}{% endif %}ok");
    assertThat(t.render(Map.of("messages", List.of(1)))).isEqualTo("ok");
    assertThatThrownBy(() -> t.render(Map.of("messages", List.of())))
        .isInstanceOf(PromptEncodingException.class)
        .hasMessageContaining("No messages!")
        .extracting(e -> ((PromptEncodingException) e).kind())
        .isEqualTo(PromptEncodingException.Kind.TEMPLATE_ERROR);
  }

  @Test
  void brokenTemplatesAreErrorsNotSilentOutput() {
    assertThatThrownBy(() -> render("{% if x %}unterminated"))
        .isInstanceOf(PromptEncodingException.class);
    assertThatThrownBy(() -> render("{% unknowntag %}x"))
        .isInstanceOf(PromptEncodingException.class);
    assertThatThrownBy(() -> render("{{ 'a'.nosuchmethod() }}"))
        .isInstanceOf(PromptEncodingException.class);
    // Extended slices do not parse in Jinjava: an error, never a partial prompt.
    assertThatThrownBy(() -> render("{% for m in [1,2][::-1] %}{{ m }}{% endfor %}"))
        .isInstanceOf(PromptEncodingException.class);
  }

  @Test
  void strftimeFormatsLikePython() {
    var t = java.time.ZonedDateTime.parse("2026-03-05T09:07:02Z");
    assertThat(HfJinjava.strftime(t, "%d %b %Y, %A %H:%M:%S %%"))
        .isEqualTo("05 Mar 2026, Thursday 09:07:02 %");
  }

  /**
   * The one golden case the JS reference cannot render: LLaVA's template runs {@code
   * selectattr('type', 'equalto', 'text')} over a tool message's content, which vLLM has turned
   * into a string. Python's Jinja2 iterates the string's characters, none has a {@code type}, so
   * the message renders as its role prefix only.
   */
  @Test
  void llavaToolMessageRendersLikePython() throws Exception {
    HfModel llava = TestModels.model("llava_1_5");
    var request =
        new ObjectMapper()
            .readTree(
                """
                {"messages": [
                  {"role": "system", "content": "You are a weather bot."},
                  {"role": "user", "content": "What's the weather in Paris?"},
                  {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                    "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}]},
                  {"role": "tool", "tool_call_id": "c1", "content": "{\\"temp\\": 21.5}"}]}
                """);
    var encoded = llava.exactEncoder().orElseThrow().encodeChat(request);
    assertThat(encoded.prompt())
        .isEqualTo(
            "You are a weather bot. USER: What's the weather in Paris? ASSISTANT: TOOL: ASSISTANT:");
    assertThat(encoded.tokenIds())
        .containsExactly(llava.tokenizer().orElseThrow().encode(encoded.prompt(), false));
  }

  @Test
  void loopControlsWork() throws Exception {
    assertThat(
            render(
                "{% for i in [1,2,3,4] %}{% if i == 2 %}{% continue %}{% endif %}"
                    + "{% if i == 4 %}{% break %}{% endif %}{{ i }}{% endfor %}"))
        .isEqualTo("13");
  }

  @Test
  void undefinedVariablesAreEmptyAndFalsy() throws Exception {
    Map<String, Object> v = new HashMap<>();
    assertThat(render("[{{ nothing }}]{% if nothing %}x{% endif %}", v)).isEqualTo("[]");
  }
}
