package io.sightline.routing.selection;

/**
 * Optional cost terms from scraped worker metrics (llm-d's queue / running-requests / KV-usage
 * scorers, {@code ../shared/reference/llmd.md} §4, turned into costs in block units): {@code
 * waiting_queue = waiting_queue_weight · waiting}, {@code running_requests =
 * running_requests_weight · running}, {@code kv_usage = kv_usage_weight · usage}. Metrics older
 * than {@code metrics_stale_secs} or absent add nothing. All weights default to 0 (off).
 */
public final class MetricsCostScorer implements CostScorer {
  @Override
  public String name() {
    return "metrics";
  }

  @Override
  public void score(SelectionContext ctx, CandidateView c, CostTerms terms) {
    RouterConfig cfg = ctx.config();
    WorkerMetrics m = c.candidate().metrics();
    if (m == null
        || (cfg.waitingQueueWeight() == 0
            && cfg.runningRequestsWeight() == 0
            && cfg.kvUsageWeight() == 0)) {
      return;
    }
    if (ctx.nowMillis() - m.scrapedAtMillis() > cfg.metricsStaleSecs() * 1000.0) {
      return;
    }
    if (cfg.waitingQueueWeight() > 0) {
      terms.add("waiting_queue", cfg.waitingQueueWeight() * Math.max(0, m.waitingRequests()));
    }
    if (cfg.runningRequestsWeight() > 0) {
      terms.add("running_requests", cfg.runningRequestsWeight() * Math.max(0, m.runningRequests()));
    }
    if (cfg.kvUsageWeight() > 0) {
      terms.add("kv_usage", cfg.kvUsageWeight() * Math.min(1.0, Math.max(0.0, m.kvUsage())));
    }
  }
}
