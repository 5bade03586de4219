package io.sightline.routing.selection;

/**
 * A worker rank's in-flight load as the router booked it.
 *
 * @param activePrefillTokens uncached prompt tokens of routed requests not yet prefilled
 * @param activeBlocks KV blocks of routed requests still active (the decode term)
 * @param activeRequests routed requests not yet released
 */
public record WorkerLoad(long activePrefillTokens, long activeBlocks, long activeRequests) {
  public static final WorkerLoad IDLE = new WorkerLoad(0, 0, 0);

  public WorkerLoad plus(WorkerLoad o) {
    return new WorkerLoad(
        activePrefillTokens + o.activePrefillTokens,
        activeBlocks + o.activeBlocks,
        activeRequests + o.activeRequests);
  }
}
