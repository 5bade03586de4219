package io.sightline.prompt.hf;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.tree.Node;
import io.sightline.routing.prompt.ChatTemplate;
import io.sightline.routing.prompt.PromptEncodingException;
import java.util.List;
import java.util.Map;

/**
 * A Hugging Face chat template parsed once with {@link HfJinjava} and rendered per request with a
 * fresh interpreter (the parsed tree is immutable and shared; rendering is thread-safe).
 *
 * <p>Jinjava reports most problems as errors on the interpreter and still returns output – an empty
 * string for {@code {% break %}}, the raw template text for some parse failures – so every error,
 * at parse or render time, fails the request ({@code TEMPLATE_ERROR}) and the caller falls back to
 * approximate routing (../shared/reference/tokenizers.md §3: "Jinjava fails silently").
 */
public final class JinjaChatTemplate implements ChatTemplate {

  private final Jinjava jinjava;
  private final Node root;
  private final String source;

  private JinjaChatTemplate(Jinjava jinjava, Node root, String source) {
    this.jinjava = jinjava;
    this.root = root;
    this.source = source;
  }

  /**
   * Parses a template.
   *
   * @throws PromptEncodingException {@code TEMPLATE_ERROR} if it does not parse cleanly
   */
  public static JinjaChatTemplate parse(String templateSource) throws PromptEncodingException {
    String source = jinjaSource(templateSource);
    Jinjava jinjava = HfJinjava.engine();
    JinjavaInterpreter interpreter = jinjava.newInterpreter();
    JinjavaInterpreter.pushCurrent(interpreter);
    try {
      Node root = interpreter.parse(source);
      failOnErrors(interpreter.getErrors(), "parse");
      return new JinjaChatTemplate(jinjava, root, source);
    } catch (RuntimeException e) {
      throw new PromptEncodingException(
          PromptEncodingException.Kind.TEMPLATE_ERROR,
          "chat template does not parse: " + e.getMessage(),
          e);
    } finally {
      JinjavaInterpreter.popCurrent();
    }
  }

  /** Jinja normalises newlines and drops one trailing newline of the source. */
  static String jinjaSource(String template) {
    String s = template.replace("\r\n", "\n").replace('\r', '\n');
    if (s.endsWith("\n")) {
      s = s.substring(0, s.length() - 1);
    }
    return s;
  }

  /** The template source as rendered (after Jinja's newline handling). */
  public String source() {
    return source;
  }

  @Override
  public String render(Map<String, Object> variables) throws PromptEncodingException {
    Context context = new Context(jinjava.getGlobalContext());
    context.putAll(variables);
    JinjavaInterpreter interpreter =
        new JinjavaInterpreter(jinjava, context, jinjava.getGlobalConfig());
    JinjavaInterpreter.pushCurrent(interpreter);
    try {
      String output = interpreter.render(root);
      failOnErrors(interpreter.getErrors(), "render");
      return output;
    } catch (HfJinjava.TemplateRaisedException e) {
      throw new PromptEncodingException(
          PromptEncodingException.Kind.TEMPLATE_ERROR,
          "chat template raised: " + e.getMessage(),
          e);
    } catch (PromptEncodingException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new PromptEncodingException(
          PromptEncodingException.Kind.TEMPLATE_ERROR,
          "chat template failed: " + rootMessage(e),
          e);
    } finally {
      JinjavaInterpreter.popCurrent();
    }
  }

  private static void failOnErrors(List<TemplateError> errors, String phase)
      throws PromptEncodingException {
    if (errors.isEmpty()) {
      return;
    }
    TemplateError first = errors.get(0);
    String raised = raisedMessage(first);
    String message =
        raised != null
            ? "chat template raised: " + raised
            : "chat template "
                + phase
                + " error at line "
                + first.getLineno()
                + ": "
                + first.getMessage()
                + (errors.size() > 1 ? " (+" + (errors.size() - 1) + " more)" : "");
    throw new PromptEncodingException(PromptEncodingException.Kind.TEMPLATE_ERROR, message);
  }

  private static String raisedMessage(TemplateError error) {
    Throwable t = error.getException();
    while (t != null) {
      if (t instanceof HfJinjava.TemplateRaisedException) {
        return t.getMessage();
      }
      t = t.getCause();
    }
    return null;
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }
}
