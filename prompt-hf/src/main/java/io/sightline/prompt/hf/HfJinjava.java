package io.sightline.prompt.hf;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.filter.AdvancedFilter;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import com.hubspot.jinjava.lib.tag.Tag;
import com.hubspot.jinjava.tree.Node;
import com.hubspot.jinjava.tree.TagNode;
import java.time.ZonedDateTime;
import java.time.format.TextStyle;
import java.util.Locale;
import java.util.Map;
import jinjava.javax.el.CompositeELResolver;

/**
 * A Jinjava engine configured to render Hugging Face chat templates the way transformers' Jinja2
 * environment does ({@code ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)}
 * plus {@code tojson}, {@code raise_exception}, {@code strftime_now} and the {@code generation}
 * tag). Stock Jinjava 2.8.4 renders only 8 of 24 reference prompts byte-identically; this layer
 * brings it to 24/24 (../shared/reference/tokenizers.md §3). What it adds:
 *
 * <ul>
 *   <li>trim/lstrip blocks, and Jinja's {@code {{- … -}}} trimming for expressions and comments
 *       ({@code withUseTrimmingForNotesAndExpressions});
 *   <li>Python {@code str} methods ({@link PyStringMethodResolver});
 *   <li>a Python-exact {@code tojson} ({@link PyJson});
 *   <li>{@code {% generation %}…{% endgeneration %}} rendered as its body (transformers only uses
 *       it to build assistant masks);
 *   <li>{@code raise_exception(msg)} failing the render, and {@code strftime_now(fmt)}.
 * </ul>
 *
 * <p>Jinja drops one trailing newline of the template source ({@code keep_trailing_newline=False});
 * that is done on the source in {@link JinjaChatTemplate}, not with Jinjava's output option, which
 * would strip the newline from the output instead. The engine is immutable after construction and
 * shared by all templates.
 */
final class HfJinjava {

  private static final Jinjava ENGINE = create();

  private HfJinjava() {}

  static Jinjava engine() {
    return ENGINE;
  }

  private static Jinjava create() {
    LegacyOverrides overrides =
        LegacyOverrides.newBuilder()
            .withUseTrimmingForNotesAndExpressions(true)
            .withUsePyishObjectMapper(true)
            .build();
    JinjavaConfig base = JinjavaConfig.newBuilder().build();
    CompositeELResolver resolver = new CompositeELResolver();
    resolver.add(new PyStringMethodResolver());
    resolver.add(base.getElResolver());
    JinjavaConfig config =
        JinjavaConfig.newBuilder()
            .withTrimBlocks(true)
            // lstrip_blocks is applied to the source (JinjaChatTemplate.lstripBlocks): Jinjava's
            // option also strips spaces that follow text on the same line.
            .withLstripBlocks(false)
            .withLegacyOverrides(overrides)
            .withElResolver(resolver)
            .withFailOnUnknownTokens(false)
            .build();
    Jinjava jinjava = new Jinjava(config);
    jinjava.registerFilter(new ToJsonFilter());
    jinjava.registerTag(new GenerationTag());
    jinjava.registerFunction(
        new ELFunctionDefinition(
            "", "raise_exception", HfJinjava.class, "raiseException", String.class));
    jinjava.registerFunction(
        new ELFunctionDefinition("", "strftime_now", HfJinjava.class, "strftimeNow", String.class));
    return jinjava;
  }

  /** Thrown by {@code raise_exception}; the render is failed with this message. */
  static final class TemplateRaisedException extends RuntimeException {
    TemplateRaisedException(String message) {
      super(message);
    }
  }

  /** {@code raise_exception(message)} as transformers defines it. */
  public static String raiseException(String message) {
    throw new TemplateRaisedException(message);
  }

  /** {@code strftime_now(format)}: the current local time in a Python strftime format. */
  public static String strftimeNow(String format) {
    return strftime(ZonedDateTime.now(), format);
  }

  static String strftime(ZonedDateTime t, String format) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < format.length(); i++) {
      char c = format.charAt(i);
      if (c != '%' || i + 1 >= format.length()) {
        sb.append(c);
        continue;
      }
      char f = format.charAt(++i);
      switch (f) {
        case 'Y' -> sb.append(t.getYear());
        case 'y' -> sb.append(String.format("%02d", t.getYear() % 100));
        case 'm' -> sb.append(String.format("%02d", t.getMonthValue()));
        case 'd' -> sb.append(String.format("%02d", t.getDayOfMonth()));
        case 'e' -> sb.append(String.format("%2d", t.getDayOfMonth()));
        case 'H' -> sb.append(String.format("%02d", t.getHour()));
        case 'I' -> sb.append(String.format("%02d", (t.getHour() + 11) % 12 + 1));
        case 'M' -> sb.append(String.format("%02d", t.getMinute()));
        case 'S' -> sb.append(String.format("%02d", t.getSecond()));
        case 'p' -> sb.append(t.getHour() < 12 ? "AM" : "PM");
        case 'B' -> sb.append(t.getMonth().getDisplayName(TextStyle.FULL, Locale.ENGLISH));
        case 'b', 'h' -> sb.append(t.getMonth().getDisplayName(TextStyle.SHORT, Locale.ENGLISH));
        case 'A' -> sb.append(t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ENGLISH));
        case 'a' -> sb.append(t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH));
        case 'j' -> sb.append(String.format("%03d", t.getDayOfYear()));
        case '%' -> sb.append('%');
        default -> sb.append('%').append(f);
      }
    }
    return sb.toString();
  }

  /** transformers' {@code tojson}: {@code json.dumps(x, ensure_ascii=False, indent=indent)}. */
  static final class ToJsonFilter implements AdvancedFilter {
    @Override
    public String getName() {
      return "tojson";
    }

    @Override
    public Object filter(
        Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
      Object indent = kwargs.get("indent");
      if (indent == null && args.length > 0) {
        indent = args[0];
      }
      Integer n = null;
      if (indent instanceof Number num) {
        n = num.intValue();
      } else if (indent != null) {
        n = Integer.parseInt(indent.toString());
      }
      return PyJson.dumps(var, n);
    }
  }

  /** {@code {% generation %}…{% endgeneration %}}: renders its body unchanged. */
  static final class GenerationTag implements Tag {
    @Override
    public String getName() {
      return "generation";
    }

    @Override
    public String interpret(TagNode tagNode, JinjavaInterpreter interpreter) {
      StringBuilder sb = new StringBuilder();
      for (Node child : tagNode.getChildren()) {
        sb.append(child.render(interpreter).getValue());
      }
      return sb.toString();
    }
  }
}
