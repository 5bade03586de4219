package io.sightline.routing.index;

/**
 * One worker's match for a request: the consecutive prefix of the request's blocks, from block 0,
 * that it holds on any tier or is predicted to hold, split by the best source per block.
 *
 * @param worker the worker rank
 * @param matchedBlocks consecutive-prefix depth (blocks 0..matchedBlocks-1 are held somewhere)
 * @param deviceBlocks of those, blocks whose best source is a device (GPU) event entry
 * @param predictedBlocks blocks whose best source is a prediction (counts as device weight)
 * @param hostBlocks blocks whose best source is the host tier
 * @param diskBlocks blocks whose best source is the disk tier
 * @param externalBlocks blocks whose best source is the external tier
 * @param weightedBlocks Σ per-block best tier weight (device/predicted 1.0, host 0.75, disk and
 *     external 0.25 by default)
 */
public record WorkerOverlap(
    WorkerKey worker,
    int matchedBlocks,
    int deviceBlocks,
    int predictedBlocks,
    int hostBlocks,
    int diskBlocks,
    int externalBlocks,
    double weightedBlocks) {

  /** No overlap. */
  public static WorkerOverlap none(WorkerKey worker) {
    return new WorkerOverlap(worker, 0, 0, 0, 0, 0, 0, 0.0);
  }

  /** Blocks counted at device weight: device events plus predictions. */
  public int deviceOrPredictedBlocks() {
    return deviceBlocks + predictedBlocks;
  }
}
