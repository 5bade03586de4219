package io.sightline.prompt.hf;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * Python's {@code json.dumps(x, ensure_ascii=False, indent=indent)} for the plain Java values a
 * template sees – the {@code tojson} filter transformers installs in its Jinja environment. Chat
 * templates put tool schemas and tool-call arguments through it, so any byte of difference
 * (separator spaces, float format, escaping) changes the prompt and the cache key.
 *
 * <p>Python specifics reproduced: {@code ", "} and {@code ": "} separators without indent, {@code
 * ","} and {@code ": "} with it; only {@code " \\ \n \r \t \b \f} and other C0 controls are escaped
 * (ensure_ascii=False keeps non-ASCII, including U+2028); floats use {@code repr} (shortest
 * round-trip digits, exponent form below 1e-4 or from 1e16, e.g. {@code 1e-07}, {@code 1e+16},
 * {@code 100.0}); {@code NaN}/{@code Infinity} as Python writes them.
 */
final class PyJson {

  private PyJson() {}

  static String dumps(Object value, Integer indent) {
    StringBuilder sb = new StringBuilder();
    write(sb, value, indent, 0);
    return sb.toString();
  }

  private static void write(StringBuilder sb, Object v, Integer indent, int level) {
    if (v instanceof Optional<?> o) {
      v = o.orElse(null);
    }
    if (v == null) {
      sb.append("null");
    } else if (v instanceof Boolean b) {
      sb.append(b ? "true" : "false");
    } else if (v instanceof Double || v instanceof Float) {
      sb.append(floatRepr(((Number) v).doubleValue()));
    } else if (v instanceof BigDecimal bd) {
      sb.append(floatRepr(bd.doubleValue()));
    } else if (v instanceof Number n) {
      sb.append(n instanceof BigInteger ? n.toString() : Long.toString(n.longValue()));
    } else if (v instanceof Map<?, ?> map) {
      writeMap(sb, map, indent, level);
    } else if (v instanceof Collection<?> c) {
      writeIterable(sb, c.iterator(), c.isEmpty(), indent, level);
    } else if (v instanceof Object[] arr) {
      writeIterable(sb, java.util.Arrays.asList(arr).iterator(), arr.length == 0, indent, level);
    } else {
      writeString(sb, v.toString());
    }
  }

  private static void writeMap(StringBuilder sb, Map<?, ?> map, Integer indent, int level) {
    if (map.isEmpty()) {
      sb.append("{}");
      return;
    }
    sb.append('{');
    boolean first = true;
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (!first) {
        sb.append(indent == null ? ", " : ",");
      }
      first = false;
      newline(sb, indent, level + 1);
      writeString(sb, key(e.getKey()));
      sb.append(": ");
      write(sb, e.getValue(), indent, level + 1);
    }
    newline(sb, indent, level);
    sb.append('}');
  }

  /** Python converts non-string keys: None → "null", True → "true", numbers → their text. */
  private static String key(Object k) {
    if (k == null) {
      return "null";
    }
    if (k instanceof Boolean b) {
      return b ? "true" : "false";
    }
    if (k instanceof Double || k instanceof Float) {
      return floatRepr(((Number) k).doubleValue());
    }
    return k.toString();
  }

  private static void writeIterable(
      StringBuilder sb, Iterator<?> it, boolean empty, Integer indent, int level) {
    if (empty) {
      sb.append("[]");
      return;
    }
    sb.append('[');
    boolean first = true;
    while (it.hasNext()) {
      if (!first) {
        sb.append(indent == null ? ", " : ",");
      }
      first = false;
      newline(sb, indent, level + 1);
      write(sb, it.next(), indent, level + 1);
    }
    newline(sb, indent, level);
    sb.append(']');
  }

  private static void newline(StringBuilder sb, Integer indent, int level) {
    if (indent != null) {
      sb.append('\n');
      sb.append(" ".repeat(indent * level));
    }
  }

  static void writeString(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case '\b' -> sb.append("\\b");
        case '\f' -> sb.append("\\f");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }

  /** Python {@code repr(float)}. */
  static String floatRepr(double d) {
    if (Double.isNaN(d)) {
      return "NaN";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "Infinity" : "-Infinity";
    }
    if (d == 0) {
      return (1 / d < 0) ? "-0.0" : "0.0";
    }
    // Double.toString gives the shortest round-trip digits (JDK 19+); re-lay them out as Python.
    BigDecimal bd = new BigDecimal(Double.toString(Math.abs(d))).stripTrailingZeros();
    String digits = bd.unscaledValue().toString();
    int exp10 = digits.length() - 1 - bd.scale(); // position of the first digit
    StringBuilder sb = new StringBuilder();
    if (d < 0) {
      sb.append('-');
    }
    if (exp10 < -4 || exp10 >= 16) {
      sb.append(digits.charAt(0));
      if (digits.length() > 1) {
        sb.append('.').append(digits, 1, digits.length());
      }
      sb.append('e').append(exp10 < 0 ? '-' : '+');
      int a = Math.abs(exp10);
      if (a < 10) {
        sb.append('0');
      }
      sb.append(a);
    } else if (exp10 < 0) {
      sb.append("0.").append("0".repeat(-exp10 - 1)).append(digits);
    } else if (digits.length() <= exp10 + 1) {
      sb.append(digits).append("0".repeat(exp10 + 1 - digits.length())).append(".0");
    } else {
      sb.append(digits, 0, exp10 + 1).append('.').append(digits, exp10 + 1, digits.length());
    }
    return sb.toString();
  }
}
