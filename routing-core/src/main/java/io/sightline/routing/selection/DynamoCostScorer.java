package io.sightline.routing.selection;

import io.sightline.routing.index.WorkerOverlap;

/**
 * Dynamo's default worker cost ({@code ../shared/reference/dynamo.md} §4, {@code
 * scheduling/selector.rs}):
 *
 * <pre>
 * raw_prefill = (active_prefill_tokens[w] + isl) / block_size      (queued tokens only if track_prefill_tokens)
 * credit      = overlap_score_credit · device_overlap + host_w · host_overlap + disk_w · disk_overlap
 * cost        = prefill_load_scale · max(0, raw_prefill − credit)
 *             + active_blocks[w]                                  (if track_active_blocks)
 *             + decode_active_request_weight · active_requests[w]
 * </pre>
 *
 * Device overlap includes predicted blocks; the host/disk/external weights are the index's tier
 * weights ({@code WorkerOverlap#weightedBlocks}). Terms: {@code prefill}, {@code decode}, {@code
 * active_requests}.
 */
public final class DynamoCostScorer implements CostScorer {
  @Override
  public String name() {
    return "dynamo-cost";
  }

  @Override
  public void score(SelectionContext ctx, CandidateView c, CostTerms terms) {
    RouterConfig cfg = ctx.config();
    SelectionRequest req = ctx.request();
    WorkerOverlap o = c.overlap();
    double queued = cfg.trackPrefillTokens() ? c.load().activePrefillTokens() : 0;
    double rawPrefill = (queued + req.inputTokens()) / req.blockSize();
    double device = o.deviceOrPredictedBlocks();
    double lowerTiers = o.weightedBlocks() - device;
    double credit = cfg.overlapScoreCredit() * device + Math.max(0.0, lowerTiers);
    terms.add("prefill", cfg.prefillLoadScale() * Math.max(0.0, rawPrefill - credit));
    terms.add("decode", cfg.trackActiveBlocks() ? c.load().activeBlocks() : 0.0);
    if (cfg.decodeActiveRequestWeight() > 0) {
      terms.add("active_requests", cfg.decodeActiveRequestWeight() * c.load().activeRequests());
    }
  }
}
