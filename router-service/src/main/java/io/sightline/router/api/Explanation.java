package io.sightline.router.api;

import java.util.List;

/**
 * Why a worker was chosen: every candidate's overlap and cost terms.
 *
 * @param model the model routed for
 * @param mode how the routing tokens were produced: {@code "precise"} (model tokenizer + chat
 *     template), {@code "approximate"} (estimated tokens, image-aware), or {@code "text-only"} (no
 *     processor spec: images not expanded)
 * @param fallbackReason why routing fell back from precise/image-aware routing ({@code
 *     "unknown_model"}, {@code "no_processor_spec"}, {@code "no_tokenizer"}, {@code "load_failed"},
 *     {@code "encode_failed"}), or {@code null} when it did not
 * @param blockSize KV block size in tokens used for hashing
 * @param routingTokens number of routing tokens (after image expansion)
 * @param imageTokens of those, tokens that came from images
 * @param candidates one entry per known worker (and dp rank), chosen one included
 */
public record Explanation(
    String model,
    String mode,
    String fallbackReason,
    int blockSize,
    int routingTokens,
    int imageTokens,
    List<Candidate> candidates) {
  public Explanation {
    candidates = candidates == null ? List.of() : List.copyOf(candidates);
  }

  /**
   * One candidate worker.
   *
   * @param workerId registry worker id
   * @param dpRank data-parallel rank
   * @param overlapBlocks prefix blocks this worker holds (events) or is predicted to hold
   * @param totalBlocks the request's full blocks
   * @param prefillBlocks blocks left to prefill on this worker ({@code total - overlap})
   * @param decodeLoad the decode-load term (in-flight blocks of this worker, all replicas)
   * @param cost the weighted cost ({@code prefillWeight * prefillBlocks + decodeLoad})
   * @param chosen whether this candidate was picked
   * @param filteredReason why the candidate was excluded ({@code "unhealthy"}, {@code "draining"},
   *     {@code "capacity"}, …), or {@code null} when it competed
   * @param costTerms the named terms {@code cost} is the sum of (e.g. {@code prefill}, {@code
   *     decode}); empty when filtered
   */
  public record Candidate(
      String workerId,
      int dpRank,
      int overlapBlocks,
      int totalBlocks,
      int prefillBlocks,
      double decodeLoad,
      double cost,
      boolean chosen,
      String filteredReason,
      java.util.Map<String, Double> costTerms) {
    public Candidate {
      costTerms = costTerms == null ? java.util.Map.of() : java.util.Map.copyOf(costTerms);
    }

    /** A candidate without a cost-term breakdown. */
    public Candidate(
        String workerId,
        int dpRank,
        int overlapBlocks,
        int totalBlocks,
        int prefillBlocks,
        double decodeLoad,
        double cost,
        boolean chosen,
        String filteredReason) {
      this(
          workerId,
          dpRank,
          overlapBlocks,
          totalBlocks,
          prefillBlocks,
          decodeLoad,
          cost,
          chosen,
          filteredReason,
          java.util.Map.of());
    }
  }
}
