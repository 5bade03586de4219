package io.sightline.router.ingest;

/**
 * The newest load a worker rank reported through its metrics endpoint.
 *
 * @param workerId the worker
 * @param dpRank its data-parallel rank
 * @param running requests executing (vLLM {@code num_requests_running}, TRT-LLM {@code
 *     numActiveRequests})
 * @param waiting requests queued ({@code num_requests_waiting} / {@code numQueuedRequests})
 * @param kvUsage KV cache utilisation 0..1, {@code NaN} when not reported
 * @param scrapedAtNanos {@link System#nanoTime()} of the scrape
 */
public record ScrapedLoad(
    String workerId,
    int dpRank,
    double running,
    double waiting,
    double kvUsage,
    long scrapedAtNanos) {

  /** True when older than {@code staleAfterNanos} at {@code nowNanos}. */
  public boolean isStale(long nowNanos, long staleAfterNanos) {
    return nowNanos - scrapedAtNanos > staleAfterNanos;
  }
}
