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
    ClassLoader previous = useJinjavaClassLoader();
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
      Thread.currentThread().setContextClassLoader(previous);
    }
  }

  /**
   * Jinjava's EL finds its {@code ExpressionFactory} through the thread's context class loader. A
   * server thread started under a nested-jar launcher (Spring Boot's {@code PropertiesLauncher}
   * running worker-sim from the all-in-one image) has the system loader there, which cannot see the
   * nested jars, and every render would fail. Returns the loader to restore.
   */
  private static ClassLoader useJinjavaClassLoader() {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(Jinjava.class.getClassLoader());
    return previous;
  }

  /**
   * Jinja's source handling that Jinjava lacks or gets wrong: newlines normalised to {@code \n},
   * one trailing newline dropped ({@code keep_trailing_newline=False}), and {@code lstrip_blocks}.
   */
  static String jinjaSource(String template) {
    String s = template.replace("\r\n", "\n").replace('\r', '\n');
    if (s.endsWith("\n")) {
      s = s.substring(0, s.length() - 1);
    }
    return lstripBlocks(s);
  }

  /**
   * Jinja2's {@code lstrip_blocks}: spaces and tabs between the start of a line and a block tag
   * ({@code {%}) or comment ({@code {#}) are removed, unless the tag opens with {@code +}. Only
   * whitespace at the <em>start of a line</em> counts; Jinjava's own option also strips
   * whitespace after text on the same line (Qwen-VL's {@code "Picture 1: {% endif %}"} lost its
   * space), so it is off and this rewrite is applied to the source instead.
   */
  static String lstripBlocks(String s) {
    StringBuilder out = new StringBuilder(s.length());
    int lineStart = 0; // index in out where the current line's data starts
    boolean onlyBlanks = true; // out[lineStart..] holds only spaces/tabs so far
    int i = 0;
    int n = s.length();
    while (i < n) {
      char c = s.charAt(i);
      if (c == '{' && i + 1 < n && (s.charAt(i + 1) == '%' || s.charAt(i + 1) == '#')) {
        char kind = s.charAt(i + 1);
        boolean keep = i + 2 < n && s.charAt(i + 2) == '+';
        if (onlyBlanks && !keep) {
          out.setLength(lineStart);
        }
        // Copy the whole tag/comment verbatim; it is not line data.
        String close = kind == '%' ? "%}" : "#}";
        int end = s.indexOf(close, i + 2);
        int stop = end < 0 ? n : end + 2;
        String tag = s.substring(i, stop);
        out.append(tag);
        int nl = tag.lastIndexOf('\n');
        if (nl >= 0) {
          // A multi-line tag: what follows it is not at a line start.
          lineStart = out.length();
        }
        onlyBlanks = false;
        i = stop;
        continue;
      }
      if (c == '{' && i + 1 < n && s.charAt(i + 1) == '{') {
        int end = s.indexOf("}}", i + 2);
        int stop = end < 0 ? n : end + 2;
        out.append(s, i, stop);
        onlyBlanks = false;
        i = stop;
        continue;
      }
      out.append(c);
      if (c == '\n') {
        lineStart = out.length();
        onlyBlanks = true;
      } else if (c != ' ' && c != '\t') {
        onlyBlanks = false;
      }
      i++;
    }
    return out.toString();
  }

  /** The template source as rendered (after Jinja's newline handling). */
  public String source() {
    return source;
  }

  @Override
  public String render(Map<String, Object> variables) throws PromptEncodingException {
    ClassLoader previous = useJinjavaClassLoader();
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
      Thread.currentThread().setContextClassLoader(previous);
    }
  }

  private static void failOnErrors(List<TemplateError> all, String phase)
      throws PromptEncodingException {
    List<TemplateError> errors = all.stream().filter(e -> !isPythonUndefined(e)).toList();
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

  /**
   * A read of a missing attribute ({@code x.type} on a string) is a warning in Jinjava and yields
   * null; in Jinja2 it is {@code Undefined} – empty and falsy – and not an error either. Such
   * warnings are the only errors tolerated: LLaVA's template relies on it for tool messages.
   */
  private static boolean isPythonUndefined(TemplateError e) {
    return e.getSeverity() == TemplateError.ErrorType.WARNING
        && e.getReason() == TemplateError.ErrorReason.UNKNOWN
        && e.getItem() == TemplateError.ErrorItem.PROPERTY;
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
