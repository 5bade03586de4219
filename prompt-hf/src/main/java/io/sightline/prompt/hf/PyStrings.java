package io.sightline.prompt.hf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Python {@code str} method semantics that Hugging Face chat templates call ({@code
 * content.strip()}, {@code role.upper()}, {@code text.split('</think>')[-1]} …). Java's look-alikes
 * differ ({@code String.split} takes a regex and drops trailing empty strings; {@code strip} has a
 * different whitespace set), so these are written out.
 */
final class PyStrings {

  private PyStrings() {}

  /** Python {@code str.isspace} for one char. */
  static boolean isSpace(char c) {
    return (c >= 0x09 && c <= 0x0d)
        || (c >= 0x1c && c <= 0x20)
        || c == 0x85
        || c == 0xa0
        || Character.isSpaceChar(c);
  }

  static String strip(String s, String chars, boolean left, boolean right) {
    int start = 0;
    int end = s.length();
    if (left) {
      while (start < end && stripChar(s.charAt(start), chars)) {
        start++;
      }
    }
    if (right) {
      while (end > start && stripChar(s.charAt(end - 1), chars)) {
        end--;
      }
    }
    return s.substring(start, end);
  }

  private static boolean stripChar(char c, String chars) {
    return chars == null ? isSpace(c) : chars.indexOf(c) >= 0;
  }

  static List<String> split(String s, String sep, int maxsplit) {
    List<String> out = new ArrayList<>();
    if (sep == null) {
      int i = 0;
      int n = s.length();
      while (true) {
        while (i < n && isSpace(s.charAt(i))) {
          i++;
        }
        if (i >= n) {
          break;
        }
        if (maxsplit >= 0 && out.size() == maxsplit) {
          out.add(strip(s.substring(i), null, false, true));
          break;
        }
        int j = i;
        while (j < n && !isSpace(s.charAt(j))) {
          j++;
        }
        out.add(s.substring(i, j));
        i = j;
      }
      return out;
    }
    if (sep.isEmpty()) {
      throw new IllegalArgumentException("empty separator");
    }
    int from = 0;
    while (maxsplit < 0 || out.size() < maxsplit) {
      int at = s.indexOf(sep, from);
      if (at < 0) {
        break;
      }
      out.add(s.substring(from, at));
      from = at + sep.length();
    }
    out.add(s.substring(from));
    return out;
  }

  static List<String> rsplit(String s, String sep, int maxsplit) {
    if (maxsplit < 0 || sep == null) {
      return split(s, sep, maxsplit);
    }
    if (sep.isEmpty()) {
      throw new IllegalArgumentException("empty separator");
    }
    List<String> out = new ArrayList<>();
    int end = s.length();
    while (out.size() < maxsplit) {
      int at = s.lastIndexOf(sep, end - sep.length());
      if (at < 0 || end - sep.length() < 0) {
        break;
      }
      out.add(0, s.substring(at + sep.length(), end));
      end = at;
    }
    out.add(0, s.substring(0, end));
    return out;
  }

  static List<String> splitlines(String s) {
    List<String> out = new ArrayList<>();
    int start = 0;
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      boolean br =
          c == '\n'
              || c == '\r'
              || c == 0x0b
              || c == 0x0c
              || (c >= 0x1c && c <= 0x1e)
              || c == 0x85
              || c == 0x2028
              || c == 0x2029;
      if (br) {
        out.add(s.substring(start, i));
        if (c == '\r' && i + 1 < s.length() && s.charAt(i + 1) == '\n') {
          i++;
        }
        start = i + 1;
      }
      i++;
    }
    if (start < s.length()) {
      out.add(s.substring(start));
    }
    return out;
  }

  static String title(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    boolean prevCased = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isLetter(c)) {
        sb.append(prevCased ? Character.toLowerCase(c) : Character.toTitleCase(c));
        prevCased = true;
      } else {
        sb.append(c);
        prevCased = false;
      }
    }
    return sb.toString();
  }

  static String capitalize(String s) {
    if (s.isEmpty()) {
      return s;
    }
    return Character.toTitleCase(s.charAt(0)) + s.substring(1).toLowerCase(Locale.ROOT);
  }

  static int count(String s, String sub) {
    if (sub.isEmpty()) {
      return s.length() + 1;
    }
    int n = 0;
    int from = 0;
    while (true) {
      int at = s.indexOf(sub, from);
      if (at < 0) {
        return n;
      }
      n++;
      from = at + sub.length();
    }
  }

  static String replace(String s, String old, String replacement, int count) {
    if (count < 0) {
      return s.replace(old, replacement);
    }
    StringBuilder sb = new StringBuilder();
    int from = 0;
    int done = 0;
    while (done < count) {
      int at = s.indexOf(old, from);
      if (at < 0) {
        break;
      }
      sb.append(s, from, at).append(replacement);
      from = at + old.length();
      done++;
      if (old.isEmpty()) {
        if (from < s.length()) {
          sb.append(s.charAt(from));
        }
        from++;
        if (from > s.length()) {
          return sb.toString();
        }
      }
    }
    sb.append(s, Math.min(from, s.length()), s.length());
    return sb.toString();
  }
}
