package io.sightline.routing.selection;

/**
 * Knobs of the default selection policy. Names and defaults follow NVIDIA Dynamo's router ({@code
 * ../shared/reference/dynamo.md} §3–4, {@code scheduling/config.rs}); the snake_case Dynamo name of
 * each is given. Knobs Dynamo does not have are marked "Sightline".
 *
 * @param overlapScoreCredit {@code router_kv_overlap_score_credit} (1.0, range 0–1): how many
 *     prefill blocks one device-cached (or predicted) overlap block is worth
 * @param prefillLoadScale {@code prefill_load_scale} (1.0): weight of the prefill term. The
 *     deprecated {@code overlap_score_weight} maps onto it ({@link #withOverlapScoreWeight})
 * @param routerTemperature {@code router_temperature} (0.0): 0 picks the minimum cost (ties broken
 *     uniformly at random); above 0 samples a softmax over min-max-normalised costs
 * @param decodeActiveRequestWeight {@code decode_active_request_weight} (0.0): cost per active
 *     request on the worker
 * @param trackPrefillTokens {@code track_prefill_tokens} (true): count prefill tokens already
 *     queued on a worker in its prefill term
 * @param trackActiveBlocks {@code track_active_blocks} (true): count a worker's active blocks as
 *     its decode term
 * @param useKvEvents {@code use_kv_events} (true): with events, a decision adds short speculative
 *     predictions; without (approximate mode), predictions are the only cache knowledge
 * @param routerTtlSecs {@code router_ttl_secs} (120): prediction TTL in approximate mode
 * @param routerPredictedTtlSecs {@code router_predicted_ttl_secs} (2; Dynamo has no default, llm-d
 *     {@code speculativeTTL} is 2 s): speculative prediction TTL when events are used; 0 disables
 * @param waitingQueueWeight Sightline (0.0): cost per waiting request in scraped worker metrics
 *     ({@code vllm:num_requests_waiting})
 * @param runningRequestsWeight Sightline (0.0): cost per running request in scraped metrics
 * @param kvUsageWeight Sightline (0.0): cost of a full KV cache (scraped usage 0–1 times this)
 * @param metricsStaleSecs Sightline (2): scraped metrics older than this are ignored (llm-d's
 *     staleness threshold)
 * @param activeRequestTtlSecs Sightline (600): a booked request whose release never comes is
 *     dropped from the load after this long
 */
public record RouterConfig(
    double overlapScoreCredit,
    double prefillLoadScale,
    double routerTemperature,
    double decodeActiveRequestWeight,
    boolean trackPrefillTokens,
    boolean trackActiveBlocks,
    boolean useKvEvents,
    double routerTtlSecs,
    double routerPredictedTtlSecs,
    double waitingQueueWeight,
    double runningRequestsWeight,
    double kvUsageWeight,
    double metricsStaleSecs,
    double activeRequestTtlSecs) {

  public static final RouterConfig DEFAULTS =
      new RouterConfig(1.0, 1.0, 0.0, 0.0, true, true, true, 120.0, 2.0, 0.0, 0.0, 0.0, 2.0, 600.0);

  public RouterConfig {
    if (!(overlapScoreCredit >= 0.0 && overlapScoreCredit <= 1.0)) {
      throw new IllegalArgumentException(
          "overlap_score_credit must be in [0, 1], was " + overlapScoreCredit);
    }
    nonNegative("prefill_load_scale", prefillLoadScale);
    nonNegative("router_temperature", routerTemperature);
    nonNegative("decode_active_request_weight", decodeActiveRequestWeight);
    nonNegative("router_ttl_secs", routerTtlSecs);
    nonNegative("router_predicted_ttl_secs", routerPredictedTtlSecs);
    nonNegative("waiting_queue_weight", waitingQueueWeight);
    nonNegative("running_requests_weight", runningRequestsWeight);
    nonNegative("kv_usage_weight", kvUsageWeight);
    nonNegative("metrics_stale_secs", metricsStaleSecs);
    if (!(activeRequestTtlSecs > 0)) {
      throw new IllegalArgumentException("active_request_ttl_secs must be > 0");
    }
  }

  /**
   * Dynamo's deprecated {@code overlap_score_weight} (v0.4–0.9: {@code w·prefill_blocks +
   * decode_blocks}): it becomes {@code prefill_load_scale = w}, and {@code w = 0} also forces the
   * credit to 0.
   */
  public RouterConfig withOverlapScoreWeight(double w) {
    nonNegative("overlap_score_weight", w);
    return new RouterConfig(
        w == 0 ? 0.0 : overlapScoreCredit,
        w,
        routerTemperature,
        decodeActiveRequestWeight,
        trackPrefillTokens,
        trackActiveBlocks,
        useKvEvents,
        routerTtlSecs,
        routerPredictedTtlSecs,
        waitingQueueWeight,
        runningRequestsWeight,
        kvUsageWeight,
        metricsStaleSecs,
        activeRequestTtlSecs);
  }

  public RouterConfig withRouterTemperature(double t) {
    return apply(new RouterConfigOverride(null, null, t, null));
  }

  public RouterConfig withUseKvEvents(boolean use) {
    return new RouterConfig(
        overlapScoreCredit,
        prefillLoadScale,
        routerTemperature,
        decodeActiveRequestWeight,
        trackPrefillTokens,
        trackActiveBlocks,
        use,
        routerTtlSecs,
        routerPredictedTtlSecs,
        waitingQueueWeight,
        runningRequestsWeight,
        kvUsageWeight,
        metricsStaleSecs,
        activeRequestTtlSecs);
  }

  public RouterConfig withMetricWeights(double waiting, double running, double kvUsage) {
    return new RouterConfig(
        overlapScoreCredit,
        prefillLoadScale,
        routerTemperature,
        decodeActiveRequestWeight,
        trackPrefillTokens,
        trackActiveBlocks,
        useKvEvents,
        routerTtlSecs,
        routerPredictedTtlSecs,
        waiting,
        running,
        kvUsage,
        metricsStaleSecs,
        activeRequestTtlSecs);
  }

  public RouterConfig withDecodeActiveRequestWeight(double w) {
    return new RouterConfig(
        overlapScoreCredit,
        prefillLoadScale,
        routerTemperature,
        w,
        trackPrefillTokens,
        trackActiveBlocks,
        useKvEvents,
        routerTtlSecs,
        routerPredictedTtlSecs,
        waitingQueueWeight,
        runningRequestsWeight,
        kvUsageWeight,
        metricsStaleSecs,
        activeRequestTtlSecs);
  }

  public RouterConfig withActiveRequestTtlSecs(double secs) {
    return new RouterConfig(
        overlapScoreCredit,
        prefillLoadScale,
        routerTemperature,
        decodeActiveRequestWeight,
        trackPrefillTokens,
        trackActiveBlocks,
        useKvEvents,
        routerTtlSecs,
        routerPredictedTtlSecs,
        waitingQueueWeight,
        runningRequestsWeight,
        kvUsageWeight,
        metricsStaleSecs,
        secs);
  }

  /** This config with a request's overrides (Dynamo's {@code router_config_override}) applied. */
  public RouterConfig apply(RouterConfigOverride o) {
    if (o == null) {
      return this;
    }
    return new RouterConfig(
        o.overlapScoreCredit() != null ? o.overlapScoreCredit() : overlapScoreCredit,
        o.prefillLoadScale() != null ? o.prefillLoadScale() : prefillLoadScale,
        o.routerTemperature() != null ? o.routerTemperature() : routerTemperature,
        decodeActiveRequestWeight,
        o.trackPrefillTokens() != null ? o.trackPrefillTokens() : trackPrefillTokens,
        trackActiveBlocks,
        useKvEvents,
        routerTtlSecs,
        routerPredictedTtlSecs,
        waitingQueueWeight,
        runningRequestsWeight,
        kvUsageWeight,
        metricsStaleSecs,
        activeRequestTtlSecs);
  }

  /** The prediction TTL a decision records: approximate or speculative, in milliseconds. */
  public long predictionTtlMillis() {
    return Math.round((useKvEvents ? routerPredictedTtlSecs : routerTtlSecs) * 1000.0);
  }

  private static void nonNegative(String name, double v) {
    if (!(v >= 0.0) || Double.isInfinite(v)) {
      throw new IllegalArgumentException(name + " must be a finite value >= 0, was " + v);
    }
  }
}
