package io.sightline.router.ingest;

import io.sightline.adapter.trtllm.TrtDecodeException;
import io.sightline.adapter.trtllm.TrtMetrics;
import io.sightline.adapter.vllm.VllmMetrics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Scrapes every worker's metrics endpoint at a fixed interval (default 50 ms) into a {@link
 * LoadBoard}: vLLM's Prometheus text ({@link VllmMetrics}) or TRT-LLM's JSON iteration stats
 * ({@link TrtMetrics}). Requests are asynchronous; a worker whose previous scrape is still in
 * flight is skipped rather than piled up, so a slow worker only goes stale. Every replica scrapes
 * every worker (load is read-only, unlike KV events).
 *
 * <p>TRT-LLM's {@code /metrics} drains the iterations since the last call; an empty list means no
 * iteration ran, so the worker is idle: the previous sample's KV usage is kept with zero requests.
 */
public final class LoadScraper implements AutoCloseable {

  /** A worker to scrape. */
  public record Target(String workerId, String dialect, URI metricsUrl) {}

  private final LoadBoard board;
  private final HttpClient http;
  private final IngestMetrics metrics;
  private final Duration interval;
  private final Duration timeout;
  private final TrtMetrics trtMetrics = new TrtMetrics();
  private final Map<String, Target> targets = new ConcurrentHashMap<>();
  private final Map<String, AtomicBoolean> inFlight = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer;

  public LoadScraper(
      LoadBoard board,
      HttpClient http,
      IngestMetrics metrics,
      Duration interval,
      Duration timeout) {
    this.board = board;
    this.http = http;
    this.metrics = metrics;
    this.interval = interval;
    this.timeout = timeout;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sightline-load-scraper");
              t.setDaemon(true);
              return t;
            });
    metrics.gauge("sightline.scrape.stale.workers", board::staleCount);
  }

  public void start() {
    timer.scheduleAtFixedRate(
        this::tick, 0, Math.max(1, interval.toMillis()), TimeUnit.MILLISECONDS);
  }

  /** Replaces the set of workers to scrape. */
  public void setTargets(Collection<Target> next) {
    Set<String> ids = new java.util.HashSet<>();
    for (Target t : next) {
      ids.add(t.workerId());
      targets.put(t.workerId(), t);
    }
    for (String id : Set.copyOf(targets.keySet())) {
      if (!ids.contains(id)) {
        targets.remove(id);
        inFlight.remove(id);
        board.removeWorker(id);
      }
    }
  }

  void tick() {
    for (Target t : targets.values()) {
      AtomicBoolean busy = inFlight.computeIfAbsent(t.workerId(), k -> new AtomicBoolean());
      if (!busy.compareAndSet(false, true)) {
        continue;
      }
      HttpRequest req = HttpRequest.newBuilder(t.metricsUrl()).timeout(timeout).GET().build();
      http.sendAsync(req, HttpResponse.BodyHandlers.ofByteArray())
          .whenComplete(
              (resp, err) -> {
                try {
                  if (err != null || resp.statusCode() != 200) {
                    metrics.scrapeFailure(t.dialect());
                  } else {
                    record(t, resp.body());
                  }
                } finally {
                  busy.set(false);
                }
              });
    }
  }

  void record(Target t, byte[] body) {
    long now = System.nanoTime();
    if ("trtllm".equals(t.dialect())) {
      try {
        var loads = trtMetrics.parse(body);
        if (loads.isEmpty()) {
          for (ScrapedLoad prev : board.all()) {
            if (prev.workerId().equals(t.workerId())) {
              board.put(new ScrapedLoad(t.workerId(), prev.dpRank(), 0, 0, prev.kvUsage(), now));
            }
          }
          return;
        }
        for (TrtMetrics.Load l : loads) {
          board.put(
              new ScrapedLoad(
                  t.workerId(),
                  l.dpRank(),
                  l.activeRequests(),
                  l.queuedRequests(),
                  l.kvUsage(),
                  now));
        }
      } catch (TrtDecodeException e) {
        metrics.scrapeFailure(t.dialect());
      }
      return;
    }
    var loads = VllmMetrics.parse(new String(body, StandardCharsets.UTF_8));
    if (loads.isEmpty()) {
      metrics.scrapeFailure(t.dialect());
      return;
    }
    for (VllmMetrics.Load l : loads) {
      board.put(
          new ScrapedLoad(
              t.workerId(),
              l.dpRank(),
              Double.isNaN(l.running()) ? 0 : l.running(),
              Double.isNaN(l.waiting()) ? 0 : l.waiting(),
              l.kvUsage(),
              now));
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
