package io.sightline.routing.index;

import io.sightline.routing.event.StorageTier;

/**
 * Tunables of {@link KvIndex}.
 *
 * @param hostWeight overlap weight of a block held only in host memory (Dynamo 0.75)
 * @param diskWeight overlap weight of a block held only on disk (Dynamo 0.25)
 * @param externalWeight overlap weight of a block held only in an external cache (0.25, as disk)
 * @param predictedEntryBudget most (block, worker) prediction entries kept; beyond it the least
 *     recently predicted are evicted (LRU)
 * @param replayWindow an event whose sequence number is at most this far behind the last applied
 *     one is a duplicate (replay overlap) and skipped; a larger step back is taken as a publisher
 *     restart and applied
 */
public record IndexConfig(
    double hostWeight,
    double diskWeight,
    double externalWeight,
    int predictedEntryBudget,
    long replayWindow) {

  public static final IndexConfig DEFAULTS = new IndexConfig(0.75, 0.25, 0.25, 1_000_000, 100_000);

  public IndexConfig {
    checkWeight("hostWeight", hostWeight);
    checkWeight("diskWeight", diskWeight);
    checkWeight("externalWeight", externalWeight);
    if (predictedEntryBudget < 0) {
      throw new IllegalArgumentException("predictedEntryBudget must be >= 0");
    }
    if (replayWindow < 0) {
      throw new IllegalArgumentException("replayWindow must be >= 0");
    }
  }

  /** Weight of a block whose best source is {@code tier} (device is always 1.0). */
  public double weight(StorageTier tier) {
    return switch (tier) {
      case DEVICE -> 1.0;
      case HOST -> hostWeight;
      case DISK -> diskWeight;
      case EXTERNAL -> externalWeight;
    };
  }

  public IndexConfig withPredictedEntryBudget(int budget) {
    return new IndexConfig(hostWeight, diskWeight, externalWeight, budget, replayWindow);
  }

  private static void checkWeight(String name, double w) {
    if (!(w >= 0.0 && w <= 1.0)) {
      throw new IllegalArgumentException(name + " must be in [0, 1], was " + w);
    }
  }
}
