package io.sightline.router.ingest;

import io.sightline.registry.client.RegistryClient;
import io.sightline.registry.model.KvEventSource;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.router.model.KvEventSink;
import io.sightline.routing.event.KvEvent;
import io.sightline.routing.index.ApplyOutcome;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.zeromq.ZContext;

/**
 * Event ingestion of one router replica, end to end:
 *
 * <ol>
 *   <li><b>Bridges.</b> From the registry's worker list, every worker with a KV event source is a
 *       candidate; {@link BridgeOwnership} says which ones this replica bridges (all of them in the
 *       embedded default; an etcd lease election in the distributed mode). A {@link VllmBridge}
 *       (ZMQ SUB + replay) or {@link TrtPollerBridge} ({@code /kv_cache_events}) is started per
 *       owned worker and stopped when the worker leaves, its source changes or ownership moves.
 *   <li><b>Plane.</b> Bridges publish normalised batches on the {@link KvEventBus}.
 *   <li><b>Apply.</b> This replica consumes the whole plane, in order, from the position its index
 *       already reflects ({@link KvEventSink#lastStreamSequence()}, e.g. after a warm start from a
 *       snapshot), and applies every event through the router's {@link KvEventSink}.
 *   <li><b>Load.</b> Optionally, a {@link LoadScraper} keeps every worker's scraped load fresh.
 * </ol>
 *
 * Reconciliation runs periodically and immediately on every registry change.
 */
public final class EventIngestion implements AutoCloseable {

  private static final Logger LOG = Logger.getLogger(EventIngestion.class.getName());

  /**
   * Timing settings.
   *
   * @param reconcileInterval how often ownership and bridges are re-checked
   * @param replayTimeout vLLM replay receive timeout
   * @param trtPollInterval TRT-LLM poll interval when the worker does not set one
   * @param httpTimeout timeout of one TRT-LLM poll
   */
  public record Settings(
      Duration reconcileInterval,
      Duration replayTimeout,
      Duration trtPollInterval,
      Duration httpTimeout) {
    public static Settings defaults() {
      return new Settings(
          Duration.ofSeconds(1),
          Duration.ofSeconds(2),
          Duration.ofMillis(50),
          Duration.ofSeconds(2));
    }
  }

  private final RegistryClient registry;
  private final KvEventBus bus;
  private final KvEventSink sink;
  private final BridgeOwnership ownership;
  private final LoadScraper scraper;
  private final IngestMetrics metrics;
  private final Settings settings;
  private final HttpClient http;
  private final ZContext zmq = new ZContext(1);
  private final Map<String, WorkerBridge> bridges = new ConcurrentHashMap<>();
  private final ScheduledExecutorService loop;
  private AutoCloseable subscription;
  private AutoCloseable registryListener;
  private volatile boolean closed;

  public EventIngestion(
      RegistryClient registry,
      KvEventBus bus,
      KvEventSink sink,
      BridgeOwnership ownership,
      LoadScraper scraper,
      IngestMetrics metrics,
      Settings settings,
      HttpClient http) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.bus = Objects.requireNonNull(bus, "bus");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.ownership = Objects.requireNonNull(ownership, "ownership");
    this.scraper = scraper;
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.http = Objects.requireNonNull(http, "http");
    this.loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sightline-ingest-reconcile");
              t.setDaemon(true);
              return t;
            });
    metrics.gauge("sightline.bridge.owned.workers", bridges::size);
  }

  /** Subscribes to the plane, starts bridges and scraping. */
  public synchronized void start() throws EventPlaneException {
    subscription = bus.subscribe(sink.lastStreamSequence(), this::apply);
    registryListener = registry.addListener(e -> loop.execute(this::reconcileQuietly));
    if (scraper != null) {
      scraper.start();
    }
    loop.scheduleWithFixedDelay(
        this::reconcileQuietly,
        0,
        Math.max(10, settings.reconcileInterval().toMillis()),
        TimeUnit.MILLISECONDS);
  }

  private void apply(EventBatchMessage message, long streamSequence) {
    for (KvEvent e : message.events()) {
      try {
        ApplyOutcome outcome = sink.apply(e, streamSequence);
        metrics.applied(outcome == null ? ApplyOutcome.REJECTED : outcome);
      } catch (RuntimeException ex) {
        metrics.applied(ApplyOutcome.REJECTED);
        LOG.log(Level.WARNING, "applying an event of " + e.workerId() + " failed", ex);
      }
    }
  }

  private void reconcileQuietly() {
    if (closed) {
      return;
    }
    try {
      reconcile();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "ingest reconcile failed", e);
    }
  }

  /** One reconciliation pass (also called by tests). */
  public synchronized void reconcile() {
    if (closed) {
      return;
    }
    List<WorkerInstance> workers = registry.workers();
    Map<String, WorkerInstance> candidates = new HashMap<>();
    List<LoadScraper.Target> targets = new ArrayList<>();
    for (WorkerInstance w : workers) {
      KvEventSource src = w.kvEvents();
      if (src != null && src.kind() != KvEventSource.Kind.NONE && src.endpoint() != null) {
        candidates.put(w.id(), w);
      }
      if (w.metricsUrl() != null && !w.metricsUrl().isBlank()) {
        try {
          targets.add(new LoadScraper.Target(w.id(), dialect(w), URI.create(w.metricsUrl())));
        } catch (IllegalArgumentException e) {
          LOG.log(
              Level.WARNING, "bad metrics URL of {0}: {1}", new Object[] {w.id(), e.getMessage()});
        }
      }
    }
    if (scraper != null) {
      scraper.setTargets(targets);
    }
    Set<String> owned = ownership.claim(candidates.keySet());
    for (String id : Set.copyOf(bridges.keySet())) {
      if (!owned.contains(id)) {
        stop(id, "no longer owned or registered");
      }
    }
    for (String id : owned) {
      WorkerInstance w = candidates.get(id);
      if (w == null) {
        continue;
      }
      WorkerBridge wanted;
      try {
        wanted = bridgeFor(w);
      } catch (IllegalArgumentException e) {
        LOG.log(Level.WARNING, "cannot bridge {0}: {1}", new Object[] {id, e.getMessage()});
        continue;
      }
      WorkerBridge running = bridges.get(id);
      if (running != null && running.sourceKey().equals(wanted.sourceKey())) {
        continue;
      }
      if (running != null) {
        stop(id, "event source changed");
      }
      try {
        wanted.start();
        bridges.put(id, wanted);
        LOG.log(
            Level.INFO, "bridging KV events of {0} ({1})", new Object[] {id, wanted.sourceKey()});
      } catch (EventPlaneException e) {
        wanted.close();
        LOG.log(
            Level.WARNING, "cannot start bridge of {0}: {1}", new Object[] {id, e.getMessage()});
      }
    }
  }

  private static String dialect(WorkerInstance w) {
    return w.dialect() == null ? "vllm" : w.dialect().id();
  }

  private WorkerBridge bridgeFor(WorkerInstance w) {
    KvEventSource src = w.kvEvents();
    int dp = w.dataParallelSize() == null ? 1 : w.dataParallelSize();
    return switch (src.kind()) {
      case ZMQ ->
          new VllmBridge(
              w.id(),
              src.endpoint(),
              src.replayEndpoint(),
              src.topic(),
              dp,
              settings.replayTimeout(),
              bus,
              metrics,
              zmq);
      case TRTLLM_POLL -> {
        if (w.kvBlockSize() == null || w.kvBlockSize() <= 0) {
          throw new IllegalArgumentException("TRT-LLM worker without kv_block_size");
        }
        Duration every =
            src.pollIntervalMs() == null || src.pollIntervalMs() <= 0
                ? settings.trtPollInterval()
                : Duration.ofMillis(src.pollIntervalMs());
        yield new TrtPollerBridge(
            w.id(),
            URI.create(src.endpoint()),
            w.kvBlockSize(),
            dp,
            every,
            settings.httpTimeout(),
            bus,
            metrics,
            http);
      }
      case NONE -> throw new IllegalArgumentException("no event source");
    };
  }

  private void stop(String id, String why) {
    WorkerBridge b = bridges.remove(id);
    if (b != null) {
      LOG.log(Level.INFO, "stopping KV event bridge of {0}: {1}", new Object[] {id, why});
      b.close();
    }
  }

  /** Workers this replica bridges now. */
  public Set<String> bridgedWorkers() {
    return Set.copyOf(bridges.keySet());
  }

  @Override
  public synchronized void close() {
    closed = true;
    loop.shutdownNow();
    for (String id : Set.copyOf(bridges.keySet())) {
      stop(id, "shutdown");
    }
    closeQuietly(registryListener);
    closeQuietly(subscription);
    if (scraper != null) {
      scraper.close();
    }
    ownership.close();
    zmq.close();
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      LOG.log(Level.FINE, "close failed", e);
    }
  }
}
