package io.sightline.routing.selection;

import java.util.random.RandomGenerator;

/**
 * Dynamo's picker ({@code ../shared/reference/dynamo.md} §4): temperature 0 takes the minimum cost,
 * ties broken uniformly at random; temperature {@code T > 0} samples {@code p_i ∝ exp(-(c_i - min)
 * / ((max - min) · T))} — a softmax over min-max-normalised costs — and uniformly when all costs
 * are equal.
 */
public final class SoftmaxPicker implements Picker {
  @Override
  public int pick(double[] costs, double temperature, RandomGenerator random, double[] p) {
    int n = costs.length;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (double c : costs) {
      min = Math.min(min, c);
      max = Math.max(max, c);
    }
    if (temperature <= 0.0 || max == min) {
      int ties = 0;
      for (double c : costs) {
        if (c == min) {
          ties++;
        }
      }
      for (int i = 0; i < n; i++) {
        p[i] = costs[i] == min ? 1.0 / ties : 0.0;
      }
      int k = random.nextInt(ties);
      for (int i = 0; i < n; i++) {
        if (costs[i] == min && k-- == 0) {
          return i;
        }
      }
      throw new IllegalStateException("unreachable");
    }
    double range = max - min;
    double sum = 0;
    for (int i = 0; i < n; i++) {
      p[i] = Math.exp(-(costs[i] - min) / (range * temperature));
      sum += p[i];
    }
    for (int i = 0; i < n; i++) {
      p[i] /= sum;
    }
    double u = random.nextDouble();
    double acc = 0;
    for (int i = 0; i < n; i++) {
      acc += p[i];
      if (u < acc) {
        return i;
      }
    }
    return n - 1;
  }
}
