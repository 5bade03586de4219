package io.sightline.router.engine;

import io.sightline.routing.selection.WorkerMetrics;

/**
 * Latest scraped engine metrics of a worker rank (queue depth, running requests, KV usage), fed by
 * the metrics scraper in {@code io.sightline.router.ingest}. The selector ignores stale values
 * ({@code RouterConfig.metricsStaleSecs}).
 */
@FunctionalInterface
public interface WorkerMetricsSource {
  /** The latest metrics, or {@code null} when none were scraped. */
  WorkerMetrics metrics(String workerId, int dpRank);

  /** No scraping: load comes only from the router's own bookings. */
  WorkerMetricsSource NONE = (w, r) -> null;
}
