package io.sightline.sim.engine;

/**
 * Latency model after llm-d-inference-sim's per-token calculator ({@code
 * ../shared/reference/llmd.md} §6): time to first token = prefill overhead + uncached prompt tokens
 * × per-token prefill time (queueing comes on top, from the scheduler), then one token every
 * inter-token latency. Defaults are llm-d's 8B/H100 profile (30 ms + 250 µs/token, 12 ms ITL). All
 * times are divided by {@code speedup}; an infinite speed-up removes every delay.
 */
public record TimingModel(
    double prefillOverheadMs, double prefillPerTokenUs, double interTokenMs, double speedup) {

  public static final TimingModel DEFAULT = new TimingModel(30, 250, 12, 1);

  public TimingModel {
    if (prefillOverheadMs < 0 || prefillPerTokenUs < 0 || interTokenMs < 0) {
      throw new IllegalArgumentException("latencies must be >= 0");
    }
    if (!(speedup > 0)) {
      throw new IllegalArgumentException("speedup must be > 0 (Infinity for no delays)");
    }
  }

  public TimingModel withSpeedup(double s) {
    return new TimingModel(prefillOverheadMs, prefillPerTokenUs, interTokenMs, s);
  }

  /** Prefill time in nanoseconds for {@code uncachedTokens} tokens to compute. */
  public long prefillNanos(int uncachedTokens) {
    return scale(prefillOverheadMs * 1e6 + uncachedTokens * prefillPerTokenUs * 1e3);
  }

  /** Inter-token latency in nanoseconds. */
  public long interTokenNanos() {
    return scale(interTokenMs * 1e6);
  }

  private long scale(double nanos) {
    return Double.isInfinite(speedup) ? 0 : (long) (nanos / speedup);
  }
}
