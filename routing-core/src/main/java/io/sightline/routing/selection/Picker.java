package io.sightline.routing.selection;

import java.util.random.RandomGenerator;

/** Last stage of selection: picks one of the scored candidates from their costs. */
public interface Picker {
  /**
   * Chooses an index into {@code costs} (never empty) and fills {@code probabilities} with each
   * candidate's chance of being chosen.
   */
  int pick(double[] costs, double temperature, RandomGenerator random, double[] probabilities);
}
