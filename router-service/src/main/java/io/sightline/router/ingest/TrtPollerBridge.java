package io.sightline.router.ingest;

import io.sightline.adapter.trtllm.TrtDecodeException;
import io.sightline.adapter.trtllm.TrtEventNormalizer;
import io.sightline.adapter.trtllm.TrtKvEvent;
import io.sightline.adapter.trtllm.TrtKvEventDecoder;
import io.sightline.routing.event.KvEvent;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Bridges a TensorRT-LLM worker by polling {@code POST /kv_cache_events} ({@code
 * ../shared/reference/trtllm.md} §2). Reads are destructive, so exactly one poller per worker may
 * exist — which is what bridge ownership guarantees across replicas — and a drained response is
 * published before the next poll (retrying the plane, never re-polling). Events are normalised by
 * {@link TrtEventNormalizer} ({@code event_id} gaps and restarts become {@code Cleared}, partial
 * blocks and smaller windows are dropped) and published as one message per rank per poll. On start
 * each rank resumes after the newest message on the plane, so events lost while ownership moved
 * show up as a gap.
 */
public final class TrtPollerBridge implements WorkerBridge {

  private static final Logger LOG = Logger.getLogger(TrtPollerBridge.class.getName());

  private final String workerId;
  private final URI endpoint;
  private final int tokensPerBlock;
  private final int ranks;
  private final Duration interval;
  private final Duration timeout;
  private final KvEventBus bus;
  private final IngestMetrics metrics;
  private final HttpClient http;
  private final PlanePublisher publisher;
  private final TrtKvEventDecoder decoder = new TrtKvEventDecoder();
  private final Map<Integer, PlaneSequencer> sequencers = new HashMap<>();
  private TrtEventNormalizer normalizer;
  private volatile boolean running;
  private Thread thread;

  public TrtPollerBridge(
      String workerId,
      URI endpoint,
      int tokensPerBlock,
      int dataParallelSize,
      Duration interval,
      Duration timeout,
      KvEventBus bus,
      IngestMetrics metrics,
      HttpClient http) {
    this.workerId = workerId;
    this.endpoint = endpoint;
    this.tokensPerBlock = tokensPerBlock;
    this.ranks = Math.max(1, dataParallelSize);
    this.interval = interval;
    this.timeout = timeout;
    this.bus = bus;
    this.metrics = metrics;
    this.http = http;
    this.publisher = new PlanePublisher(bus, metrics, "trtllm");
  }

  @Override
  public String workerId() {
    return workerId;
  }

  @Override
  public String sourceKey() {
    return "trtllm|" + endpoint + "|" + tokensPerBlock + "|" + ranks + "|" + interval;
  }

  @Override
  public synchronized void start() throws EventPlaneException {
    normalizer = new TrtEventNormalizer(workerId, tokensPerBlock);
    for (int rank = 0; rank < ranks; rank++) {
      Optional<EventBatchMessage> last = bus.last(workerId, rank);
      if (last.isPresent() && last.get().sourceSequence() >= 0) {
        normalizer.resumeAfter(rank, last.get().sourceSequence());
      }
      sequencers.put(
          rank, new PlaneSequencer(last.map(EventBatchMessage::lastEventSequence).orElse(-1L)));
    }
    running = true;
    thread = new Thread(this::run, "trtllm-kv-poller-" + workerId);
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public synchronized void close() {
    running = false;
    if (thread != null) {
      thread.interrupt();
      try {
        thread.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void run() {
    HttpRequest request =
        HttpRequest.newBuilder(endpoint)
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{}"))
            .build();
    while (running) {
      long started = System.nanoTime();
      try {
        pollOnce(request);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "TRT-LLM poller of " + workerId + " failed", e);
      }
      long sleepNanos = interval.toNanos() - (System.nanoTime() - started);
      if (sleepNanos > 0) {
        try {
          Thread.sleep(Duration.ofNanos(sleepNanos));
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /** One poll: fetch, normalise, publish. Visible for tests. */
  void pollOnce(HttpRequest request) throws InterruptedException {
    List<TrtKvEvent> raw;
    try {
      HttpResponse<byte[]> resp = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      if (resp.statusCode() != 200) {
        metrics.scrapeFailure("trtllm-events");
        return;
      }
      raw = decoder.decode(resp.body());
    } catch (IOException e) {
      metrics.scrapeFailure("trtllm-events");
      return;
    } catch (TrtDecodeException e) {
      // The events were consumed but cannot be read: the rank state is unknown from here on.
      metrics.adapterRejected("trtllm", 1);
      LOG.log(
          Level.WARNING,
          "undecodable kv_cache_events from {0}: {1}",
          new Object[] {workerId, e.getMessage()});
      for (int rank = 0; rank < ranks; rank++) {
        metrics.resync("trtllm");
        publish(
            rank, normalizer.lastEventId(rank), List.of(new KvEvent.Cleared(workerId, rank, -1)));
      }
      return;
    }
    if (raw.isEmpty()) {
      return;
    }
    TrtEventNormalizer.Result r = normalizer.normalize(raw);
    metrics.adapterRejected("trtllm", r.rejections().size());
    // No replay exists for TRT-LLM: every gap and restart is a clear-and-rebuild.
    for (int i = 0; i < r.gaps().size(); i++) {
      metrics.gap("trtllm", false);
      metrics.resync("trtllm");
    }
    for (int i = 0; i < r.restarts(); i++) {
      metrics.resync("trtllm");
    }
    Map<Integer, List<KvEvent>> byRank = new HashMap<>();
    for (TrtKvEvent e : raw) {
      byRank.computeIfAbsent(Math.max(0, e.dpRank()), k -> new ArrayList<>());
    }
    for (KvEvent e : r.events()) {
      byRank.computeIfAbsent(e.dpRank(), k -> new ArrayList<>()).add(e);
    }
    for (Map.Entry<Integer, List<KvEvent>> e : byRank.entrySet()) {
      publish(e.getKey(), normalizer.lastEventId(e.getKey()), e.getValue());
    }
  }

  private void publish(int rank, long sourceSeq, List<KvEvent> events) {
    PlaneSequencer seq = sequencers.computeIfAbsent(rank, r -> new PlaneSequencer(-1));
    publisher.publish(
        new EventBatchMessage(workerId, rank, sourceSeq, seq.stamp(events)), () -> running);
  }
}
