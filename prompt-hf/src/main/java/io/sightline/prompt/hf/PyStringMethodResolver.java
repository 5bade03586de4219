package io.sightline.prompt.hf;

import java.beans.FeatureDescriptor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * Resolves Python {@code str} method calls on strings ({@code s.upper()}, {@code s.strip('\n')},
 * {@code s.split('</think>')}, {@code s.startswith(('a','b'))} …) ahead of Jinjava's bean resolver,
 * which would otherwise fail ("Cannot find method upper") or call a Java method with different
 * semantics ({@code split} as a regex). Only invocations are handled; property reads fall through.
 * See ../shared/reference/tokenizers.md §3 for the measured gaps this closes.
 */
final class PyStringMethodResolver extends ELResolver {

  static final Set<String> METHODS =
      Set.of(
          "upper",
          "lower",
          "strip",
          "lstrip",
          "rstrip",
          "startswith",
          "endswith",
          "split",
          "rsplit",
          "splitlines",
          "replace",
          "title",
          "capitalize",
          "find",
          "rfind",
          "index",
          "count",
          "join",
          "isspace",
          "isdigit",
          "isalpha",
          "isalnum",
          "islower",
          "isupper");

  @Override
  public Object invoke(
      ELContext context, Object base, Object method, Class<?>[] paramTypes, Object[] params) {
    if (!(base instanceof CharSequence) || method == null) {
      return null;
    }
    String name = method.toString();
    if (!METHODS.contains(name)) {
      return null;
    }
    Object[] args = params == null ? new Object[0] : params;
    Object result = call(base.toString(), name, args);
    context.setPropertyResolved(true);
    return result;
  }

  private static Object call(String s, String name, Object[] a) {
    return switch (name) {
      case "upper" -> s.toUpperCase(Locale.ROOT);
      case "lower" -> s.toLowerCase(Locale.ROOT);
      case "strip" -> PyStrings.strip(s, str(a, 0), true, true);
      case "lstrip" -> PyStrings.strip(s, str(a, 0), true, false);
      case "rstrip" -> PyStrings.strip(s, str(a, 0), false, true);
      case "startswith" -> affix(s, a, true);
      case "endswith" -> affix(s, a, false);
      case "split" -> PyStrings.split(s, str(a, 0), integer(a, 1, -1));
      case "rsplit" -> PyStrings.rsplit(s, str(a, 0), integer(a, 1, -1));
      case "splitlines" -> PyStrings.splitlines(s);
      case "replace" -> PyStrings.replace(s, required(a, 0), required(a, 1), integer(a, 2, -1));
      case "title" -> PyStrings.title(s);
      case "capitalize" -> PyStrings.capitalize(s);
      case "find" -> (long) s.indexOf(required(a, 0));
      case "rfind" -> (long) s.lastIndexOf(required(a, 0));
      case "index" -> {
        int at = s.indexOf(required(a, 0));
        if (at < 0) {
          throw new IllegalArgumentException("substring not found");
        }
        yield (long) at;
      }
      case "count" -> (long) PyStrings.count(s, required(a, 0));
      case "join" -> join(s, a);
      case "isspace" -> !s.isEmpty() && s.chars().allMatch(c -> PyStrings.isSpace((char) c));
      case "isdigit" -> !s.isEmpty() && s.chars().allMatch(Character::isDigit);
      case "isalpha" -> !s.isEmpty() && s.chars().allMatch(Character::isLetter);
      case "isalnum" -> !s.isEmpty() && s.chars().allMatch(Character::isLetterOrDigit);
      case "islower" ->
          s.chars().anyMatch(Character::isLetter) && s.equals(s.toLowerCase(Locale.ROOT));
      case "isupper" ->
          s.chars().anyMatch(Character::isLetter) && s.equals(s.toUpperCase(Locale.ROOT));
      default -> throw new IllegalStateException(name);
    };
  }

  private static boolean affix(String s, Object[] a, boolean prefix) {
    if (a.length == 0 || a[0] == null) {
      throw new IllegalArgumentException(
          (prefix ? "startswith" : "endswith") + " needs an argument");
    }
    List<String> candidates = new ArrayList<>();
    if (a[0] instanceof Iterable<?> it) {
      for (Object o : it) {
        candidates.add(String.valueOf(o));
      }
    } else {
      candidates.add(a[0].toString());
    }
    for (String c : candidates) {
      if (prefix ? s.startsWith(c) : s.endsWith(c)) {
        return true;
      }
    }
    return false;
  }

  private static String join(String sep, Object[] a) {
    if (a.length == 0 || !(a[0] instanceof Iterable<?> it)) {
      throw new IllegalArgumentException("join needs an iterable");
    }
    StringBuilder sb = new StringBuilder();
    boolean first = true;
    for (Object o : it) {
      if (!first) {
        sb.append(sep);
      }
      first = false;
      sb.append(o);
    }
    return sb.toString();
  }

  private static String str(Object[] a, int i) {
    return i < a.length && a[i] != null ? a[i].toString() : null;
  }

  private static String required(Object[] a, int i) {
    String s = str(a, i);
    if (s == null) {
      throw new IllegalArgumentException("missing string argument " + (i + 1));
    }
    return s;
  }

  private static int integer(Object[] a, int i, int dflt) {
    if (i >= a.length || a[i] == null) {
      return dflt;
    }
    if (a[i] instanceof Number n) {
      return n.intValue();
    }
    return Integer.parseInt(a[i].toString());
  }

  @Override
  public Class<?> getCommonPropertyType(ELContext context, Object base) {
    return null;
  }

  @Override
  public Iterator<FeatureDescriptor> getFeatureDescriptors(ELContext context, Object base) {
    return null;
  }

  @Override
  public Class<?> getType(ELContext context, Object base, Object property) {
    return null;
  }

  @Override
  public Object getValue(ELContext context, Object base, Object property) {
    return null;
  }

  @Override
  public boolean isReadOnly(ELContext context, Object base, Object property) {
    return true;
  }

  @Override
  public void setValue(ELContext context, Object base, Object property, Object value) {}
}
