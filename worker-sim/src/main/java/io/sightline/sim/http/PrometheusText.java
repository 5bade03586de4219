package io.sightline.sim.http;

import java.util.Locale;
import java.util.Map;

/** Minimal Prometheus text exposition writer (format 0.0.4). */
public final class PrometheusText {
  private final StringBuilder out = new StringBuilder(2048);

  public PrometheusText family(String name, String type, String help) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    return this;
  }

  public PrometheusText sample(String name, Map<String, String> labels, double value) {
    out.append(name);
    if (!labels.isEmpty()) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<String, String> e : labels.entrySet()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        out.append(e.getKey()).append("=\"").append(escape(e.getValue())).append('"');
      }
      out.append('}');
    }
    out.append(' ').append(format(value)).append('\n');
    return this;
  }

  private static String format(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return Double.toString(v);
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
