package io.sightline.routing.selection;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Named cost terms of one candidate, in the order scorers added them. Not thread-safe. */
public final class CostTerms {
  private final LinkedHashMap<String, Double> terms = new LinkedHashMap<>();

  /** Adds {@code value} to term {@code name}; non-finite values are rejected. */
  public CostTerms add(String name, double value) {
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException("cost term " + name + " is not finite: " + value);
    }
    terms.merge(name, value, Double::sum);
    return this;
  }

  public double total() {
    double t = 0;
    for (double v : terms.values()) {
      t += v;
    }
    return t;
  }

  public Map<String, Double> asMap() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(terms));
  }
}
