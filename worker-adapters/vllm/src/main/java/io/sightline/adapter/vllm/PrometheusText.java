package io.sightline.adapter.vllm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal reader of the Prometheus text exposition format (version 0.0.4), enough for scraping an
 * engine's gauges and counters: {@code name{label="value",…} number [timestamp]}. Comment and
 * {@code # TYPE}/{@code # HELP} lines are skipped; label values may contain escaped quotes,
 * backslashes and newlines. Lines that do not parse are skipped and counted, never thrown.
 */
public final class PrometheusText {

  /** One sample line. */
  public record Sample(String name, Map<String, String> labels, double value) {}

  /** Parsed samples plus the number of unparseable lines. */
  public record Parsed(List<Sample> samples, int badLines) {}

  private PrometheusText() {}

  public static Parsed parse(String text) {
    List<Sample> out = new ArrayList<>();
    int bad = 0;
    if (text == null) {
      return new Parsed(out, 0);
    }
    for (String raw : text.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Sample s = parseLine(line);
      if (s == null) {
        bad++;
      } else {
        out.add(s);
      }
    }
    return new Parsed(out, bad);
  }

  private static Sample parseLine(String line) {
    int i = 0;
    int n = line.length();
    while (i < n && line.charAt(i) != '{' && !Character.isWhitespace(line.charAt(i))) {
      i++;
    }
    String name = line.substring(0, i);
    if (name.isEmpty()) {
      return null;
    }
    Map<String, String> labels = Map.of();
    if (i < n && line.charAt(i) == '{') {
      labels = new LinkedHashMap<>();
      i++;
      while (true) {
        while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == ',')) {
          i++;
        }
        if (i >= n) {
          return null;
        }
        if (line.charAt(i) == '}') {
          i++;
          break;
        }
        int eq = line.indexOf('=', i);
        if (eq < 0 || eq + 1 >= n || line.charAt(eq + 1) != '"') {
          return null;
        }
        String key = line.substring(i, eq).strip();
        StringBuilder value = new StringBuilder();
        int j = eq + 2;
        boolean closed = false;
        while (j < n) {
          char c = line.charAt(j);
          if (c == '\\' && j + 1 < n) {
            char e = line.charAt(j + 1);
            value.append(e == 'n' ? '\n' : e);
            j += 2;
          } else if (c == '"') {
            closed = true;
            j++;
            break;
          } else {
            value.append(c);
            j++;
          }
        }
        if (!closed) {
          return null;
        }
        labels.put(key, value.toString());
        i = j;
      }
      labels = Collections.unmodifiableMap(labels);
    }
    String rest = line.substring(i).strip();
    if (rest.isEmpty()) {
      return null;
    }
    String number = rest.split("\\s+")[0];
    double v;
    try {
      v =
          switch (number) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(number);
          };
    } catch (NumberFormatException e) {
      return null;
    }
    return new Sample(name, labels, v);
  }
}
