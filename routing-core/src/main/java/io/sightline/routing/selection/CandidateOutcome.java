package io.sightline.routing.selection;

import io.sightline.routing.index.WorkerKey;
import io.sightline.routing.index.WorkerOverlap;
import java.util.Map;

/**
 * One candidate's part in a decision: its overlap, load, cost terms and why it won, lost or was
 * filtered.
 *
 * @param worker worker rank
 * @param overlap cached/predicted prefix (tiers broken down)
 * @param totalBlocks the request's full blocks (hashed)
 * @param load booked load at decision time
 * @param costTerms named cost terms (empty when filtered)
 * @param cost total cost ({@code NaN} when filtered)
 * @param probability chance of being picked (0 when filtered)
 * @param chosen whether it was picked
 * @param filteredBy name of the filter that excluded it, or {@code null}
 * @param filteredReason reason key ({@code unhealthy}, {@code draining}, {@code model_not_served},
 *     {@code lora_not_loaded}, {@code capacity}, …), or {@code null}
 */
public record CandidateOutcome(
    WorkerKey worker,
    WorkerOverlap overlap,
    int totalBlocks,
    WorkerLoad load,
    Map<String, Double> costTerms,
    double cost,
    double probability,
    boolean chosen,
    String filteredBy,
    String filteredReason) {

  /** Prefix blocks held (any tier) or predicted. */
  public int overlapBlocks() {
    return overlap.matchedBlocks();
  }

  /** Blocks left to prefill: {@code total − overlap}. */
  public int prefillBlocks() {
    return Math.max(0, totalBlocks - overlap.matchedBlocks());
  }

  public boolean filtered() {
    return filteredReason != null;
  }
}
