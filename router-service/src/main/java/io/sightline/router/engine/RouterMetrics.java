package io.sightline.router.engine;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.sightline.router.model.ModelRuntime;
import io.sightline.router.model.ModelRuntimes;
import io.sightline.routing.index.IndexStats;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The router's Prometheus metrics (names under {@code sightline_router_}). Label values are
 * bounded: {@code model} is a registered card name (anything else is {@code "unknown"}), {@code
 * mode} and {@code reason} come from fixed vocabularies, never from request data.
 *
 * <ul>
 *   <li>{@code sightline_router_decisions_total{model,mode,outcome}} — route/explain calls ({@code
 *       outcome}: routed, explained, rejected)
 *   <li>{@code sightline_router_overlap_ratio{model}} — histogram of overlap/total blocks of routed
 *       requests
 *   <li>{@code sightline_router_fallbacks_total{reason}} — degraded routing (per request) and
 *       degraded model loads
 *   <li>{@code sightline_router_route_seconds} — decision latency (in-process)
 *   <li>{@code sightline_router_index_entries{model}}, {@code sightline_router_index_nodes{model}},
 *       {@code sightline_router_index_events_applied_total{model}}, {@code
 *       sightline_router_index_events_rejected_total{model}} — from each model's index
 *   <li>{@code sightline_router_inflight_requests} — this replica's booked requests
 *   <li>{@code sightline_router_releases_total{cached}} — releases, with/without cached tokens
 * </ul>
 */
public final class RouterMetrics {
  private final MeterRegistry registry;
  private final Timer routeTimer;
  private final Set<String> indexGauges = ConcurrentHashMap.newKeySet();

  public RouterMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.routeTimer =
        Timer.builder("sightline_router_route")
            .description("routing decision latency")
            .publishPercentiles(0.5, 0.99)
            .register(registry);
  }

  /** Label value for a model: the card name when registered, else "unknown". */
  static String modelLabel(ModelRuntime rt) {
    return rt.card() == null ? "unknown" : rt.name();
  }

  void decision(ModelRuntime rt, String mode, String outcome) {
    Counter.builder("sightline_router_decisions")
        .description("routing decisions")
        .tags(Tags.of("model", modelLabel(rt), "mode", mode, "outcome", outcome))
        .register(registry)
        .increment();
  }

  /** A request rejected before a runtime was resolved; {@code model} must be a card name. */
  void rejected(String model) {
    Counter.builder("sightline_router_decisions")
        .description("routing decisions")
        .tags(Tags.of("model", model, "mode", "none", "outcome", "rejected"))
        .register(registry)
        .increment();
  }

  void overlap(ModelRuntime rt, int overlap, int total) {
    DistributionSummary.builder("sightline_router_overlap_ratio")
        .description("overlap blocks / total blocks of routed requests")
        .tags("model", modelLabel(rt))
        .serviceLevelObjectives(0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
        .register(registry)
        .record(total == 0 ? 0.0 : (double) overlap / total);
  }

  /** Counts one fallback; {@code reason} must be from the fixed vocabulary. */
  public void fallback(String reason) {
    Counter.builder("sightline_router_fallbacks")
        .description("requests or model loads routed degraded, by reason")
        .tag("reason", reason)
        .register(registry)
        .increment();
  }

  void release(boolean withCachedTokens) {
    Counter.builder("sightline_router_releases")
        .tag("cached", Boolean.toString(withCachedTokens))
        .register(registry)
        .increment();
  }

  void latency(long nanos) {
    routeTimer.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** Registers the in-flight gauge. */
  void inflight(Object owner, ToDoubleFunction<Object> f) {
    Gauge.builder("sightline_router_inflight_requests", owner, f)
        .description("requests this replica routed and not yet released")
        .register(registry);
  }

  /** Registers index gauges for every loaded, registered model not yet covered. */
  void indexGauges(ModelRuntimes runtimes) {
    for (ModelRuntime rt : runtimes.all()) {
      if (rt.card() == null || !indexGauges.add(rt.name())) {
        continue;
      }
      String name = rt.name();
      gauge(runtimes, name, "sightline_router_index_entries", IndexStats::entries);
      gauge(runtimes, name, "sightline_router_index_nodes", IndexStats::nodes);
      gauge(runtimes, name, "sightline_router_index_events_applied", IndexStats::eventsApplied);
      gauge(
          runtimes,
          name,
          "sightline_router_index_events_rejected",
          s -> s.rejected().values().stream().mapToLong(Long::longValue).sum());
      gauge(runtimes, name, "sightline_router_index_unknown_parents", IndexStats::unknownParents);
    }
  }

  private void gauge(
      ModelRuntimes runtimes,
      String model,
      String metric,
      java.util.function.ToLongFunction<IndexStats> f) {
    Gauge.builder(
            metric,
            runtimes,
            r -> r.loaded(model).map(rt -> (double) f.applyAsLong(rt.index().stats())).orElse(0.0))
        .tag("model", model)
        .register(registry);
  }
}
