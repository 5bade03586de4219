package io.sightline.routing.selection;

import io.sightline.routing.index.WorkerKey;
import java.util.List;
import java.util.Optional;

/**
 * A selection decision with its explanation.
 *
 * @param request the request
 * @param config the effective knobs
 * @param chosen the picked worker rank, or {@code null} when none qualified
 * @param noChoiceReason {@code "no_candidates"} or {@code "all_filtered"} when {@code chosen} is
 *     null
 * @param candidates every candidate, in the order given, chosen one included
 */
public record SelectionResult(
    SelectionRequest request,
    RouterConfig config,
    WorkerKey chosen,
    String noChoiceReason,
    List<CandidateOutcome> candidates) {
  public SelectionResult {
    candidates = List.copyOf(candidates);
  }

  public Optional<CandidateOutcome> chosenOutcome() {
    return candidates.stream().filter(CandidateOutcome::chosen).findFirst();
  }

  /** Total hashed blocks of the request. */
  public int totalBlocks() {
    return request.localHashes().length;
  }

  /** Overlap of the chosen worker, 0 when none. */
  public int overlapBlocks() {
    return chosenOutcome().map(CandidateOutcome::overlapBlocks).orElse(0);
  }
}
