package io.sightline.router.ingest;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sightline.routing.index.ApplyOutcome;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Micrometer meters of event ingestion, all under {@code sightline_} (Prometheus names shown):
 *
 * <ul>
 *   <li>{@code sightline_events_applied_total{outcome}} — events the index took ({@code applied},
 *       {@code duplicate});
 *   <li>{@code sightline_events_rejected_total{stage,reason}} — events dropped by an adapter
 *       ({@code stage=adapter}, reason {@code vllm}/{@code trtllm}) or by the index ({@code
 *       stage=index}, reason {@code unknown_parent}/{@code rejected});
 *   <li>{@code sightline_event_sequence_gaps_total{dialect,closed}} — holes in a worker's sequence,
 *       and whether replay closed them;
 *   <li>{@code sightline_event_replays_total{result}} — replay requests ({@code ok}/{@code
 *       failed});
 *   <li>{@code sightline_event_resyncs_total{dialect}} — clear-and-rebuild of a worker rank;
 *   <li>{@code sightline_event_reconnects_total{dialect}} — event subscriptions re-established
 *       (each followed by a replay catch-up);
 *   <li>{@code sightline_event_batches_published_total{dialect}} and {@code
 *       sightline_event_plane_errors_total} — bridge output and event-plane failures;
 *   <li>{@code sightline_scrape_failures_total{dialect}}, gauge {@code
 *       sightline_scrape_stale_workers} — load scraping;
 *   <li>gauge {@code sightline_bridge_owned_workers} — workers this replica bridges.
 * </ul>
 *
 * Tags have bounded values only (no worker ids, URLs or hashes).
 */
public final class IngestMetrics {

  private final MeterRegistry registry;
  private final Map<ApplyOutcome, Counter> applied = new EnumMap<>(ApplyOutcome.class);
  private final Map<String, Counter> cache = new ConcurrentHashMap<>();

  public IngestMetrics(MeterRegistry registry) {
    this.registry = registry;
    for (ApplyOutcome o : ApplyOutcome.values()) {
      applied.put(
          o,
          switch (o) {
            case APPLIED, DUPLICATE ->
                Counter.builder("sightline.events.applied")
                    .description("KV events applied to the index")
                    .tag("outcome", o.name().toLowerCase(java.util.Locale.ROOT))
                    .register(registry);
            case UNKNOWN_PARENT, REJECTED ->
                Counter.builder("sightline.events.rejected")
                    .description("KV events dropped")
                    .tag("stage", "index")
                    .tag("reason", o.name().toLowerCase(java.util.Locale.ROOT))
                    .register(registry);
          });
    }
  }

  /** Meters on a private registry (tests, tools). */
  public static IngestMetrics standalone() {
    return new IngestMetrics(new SimpleMeterRegistry());
  }

  public MeterRegistry registry() {
    return registry;
  }

  void applied(ApplyOutcome outcome) {
    applied.get(outcome).increment();
  }

  void adapterRejected(String dialect, int count) {
    if (count > 0) {
      counter("sightline.events.rejected", "stage", "adapter", "reason", dialect).increment(count);
    }
  }

  void gap(String dialect, boolean closed) {
    counter("sightline.event.sequence.gaps", "dialect", dialect, "closed", String.valueOf(closed))
        .increment();
  }

  void replay(boolean ok) {
    counter("sightline.event.replays", "result", ok ? "ok" : "failed").increment();
  }

  void reconnect(String dialect) {
    counter("sightline.event.reconnects", "dialect", dialect).increment();
  }

  void resync(String dialect) {
    counter("sightline.event.resyncs", "dialect", dialect).increment();
  }

  void published(String dialect) {
    counter("sightline.event.batches.published", "dialect", dialect).increment();
  }

  void planeError() {
    counter("sightline.event.plane.errors").increment();
  }

  void scrapeFailure(String dialect) {
    counter("sightline.scrape.failures", "dialect", dialect).increment();
  }

  void gauge(String name, Supplier<Number> value) {
    io.micrometer.core.instrument.Gauge.builder(name, value).register(registry);
  }

  /** Current count of a counter (tests and the admin view). */
  public double count(String name, String... tags) {
    Counter c = registry.find(name).tags(tags).counter();
    return c == null ? 0 : c.count();
  }

  private Counter counter(String name, String... tags) {
    return cache.computeIfAbsent(
        name + String.join(",", tags), k -> Counter.builder(name).tags(tags).register(registry));
  }
}
