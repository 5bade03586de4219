package io.sightline.router.ingest;

import static io.sightline.router.ingest.IngestFixtures.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.KvEventSource;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.router.model.KvEventSink;
import io.sightline.routing.event.KvEvent;
import io.sightline.routing.index.ApplyOutcome;
import io.sightline.sim.Dialect;
import io.sightline.sim.SimOptions;
import io.sightline.sim.SimulatedWorker;
import io.sightline.sim.engine.TimingModel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Ingestion against real simulated workers ( worker-sim): requests fill and evict the worker's
 * prefix cache, the worker drops a share of its event batches, and the block set the router ends up
 * believing (a mirror of the applied events) must equal the worker's true cache ({@code
 * SimulatedWorker.cacheJson()}, the {@code /sim/cache} view).
 */
@Timeout(120)
class WorkerSimIngestionTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();

  /** Engine hash → number of copies the applied events say the worker holds. */
  static final class MirrorSink implements KvEventSink {
    final Map<Long, Integer> blocks = new HashMap<>();
    int clears;

    @Override
    public synchronized ApplyOutcome apply(KvEvent event, long streamSequence) {
      switch (event) {
        case KvEvent.Stored s -> {
          for (long h : s.blockHashes()) {
            blocks.merge(h, 1, Integer::sum);
          }
        }
        case KvEvent.Removed r -> {
          for (long h : r.blockHashes()) {
            blocks.computeIfPresent(h, (k, n) -> n > 1 ? n - 1 : null);
          }
        }
        case KvEvent.Cleared c -> {
          blocks.clear();
          clears++;
        }
      }
      return ApplyOutcome.APPLIED;
    }

    @Override
    public void resetWorker(String workerId, int dpRank) {}

    @Override
    public long lastStreamSequence() {
      return -1;
    }

    synchronized Map<Long, Integer> view() {
      return Map.copyOf(blocks);
    }
  }

  /** The worker's true cache as hash → copies, full blocks only. */
  static Map<Long, Integer> truth(SimulatedWorker w) {
    ObjectNode cache = w.cacheJson();
    int bs = cache.get("block_size").asInt();
    Map<Long, Integer> out = new HashMap<>();
    for (JsonNode b : cache.get("blocks")) {
      if (b.get("token_ids").size() == bs) {
        out.merge(Long.parseUnsignedLong(b.get("hash").asText()), 1, Integer::sum);
      }
    }
    return out;
  }

  private void completion(SimulatedWorker w, Random rnd) throws Exception {
    ObjectNode body = JSON.createObjectNode().put("model", "m").put("max_tokens", 2);
    var prompt = body.putArray("prompt");
    int prefix = rnd.nextInt(4); // shared prefixes -> reuse; distinct tails -> eviction
    int len = 40 + rnd.nextInt(60);
    for (int i = 0; i < len; i++) {
      prompt.add(i < 32 ? 100 * prefix + i + 1 : 5000 + rnd.nextInt(20000));
    }
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(w.baseUrl() + "/v1/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
  }

  /** A request whose prompt is new (≥ 4 fresh blocks), so it always produces a stored batch. */
  private void freshCompletion(SimulatedWorker w, int salt) throws Exception {
    ObjectNode body = JSON.createObjectNode().put("model", "m").put("max_tokens", 2);
    var prompt = body.putArray("prompt");
    for (int i = 0; i < 80; i++) {
      prompt.add(30000 + salt * 100 + i);
    }
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(w.baseUrl() + "/v1/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
  }

  private static SimOptions options(Dialect dialect) {
    return SimOptions.defaults()
        .withDialect(dialect)
        .withServedModelName("m")
        .withHashSeed("0")
        .withNumBlocks(48)
        .withTiming(TimingModel.DEFAULT.withSpeedup(Double.POSITIVE_INFINITY));
  }

  private static WorkerInstance registered(SimulatedWorker w, KvEventSource events) {
    return new WorkerInstance(
        null,
        w.workerId(),
        "m",
        null,
        w.baseUrl(),
        w.dialect() == Dialect.TRTLLM ? BackendKind.TRTLLM : BackendKind.VLLM,
        1,
        w.options().effectiveBlockSize(),
        events,
        null,
        Map.of(),
        null,
        null);
  }

  @Test
  void vllmWorkerDroppingBatchesEndsWithTheTrueCacheThroughReplay() throws Exception {
    IngestFixtures.StaticRegistry registry = new IngestFixtures.StaticRegistry();
    MirrorSink sink = new MirrorSink();
    IngestMetrics metrics = IngestMetrics.standalone();
    Random rnd = new Random(7);
    try (SimulatedWorker w = SimulatedWorker.start(options(Dialect.VLLM));
        EventIngestion ingestion =
            new EventIngestion(
                registry,
                new InProcessKvEventBus(),
                sink,
                BridgeOwnership.all(),
                null,
                metrics,
                EventIngestion.Settings.defaults(),
                http)) {
      completion(w, rnd); // history before the router subscribes: caught up by replay
      w.flushEvents();
      ingestion.start();
      registry.put(registered(w, KvEventSource.zmq(w.eventEndpoint(), w.replayEndpoint())));
      await(() -> sink.view().equals(truth(w)) && !truth(w).isEmpty(), Duration.ofSeconds(15));
      w.faults().dropEventFraction(0.3);
      w.applyFaults();
      for (int i = 0; i < 40; i++) {
        completion(w, rnd);
      }
      w.flushEvents();
      w.faults().dropEventFraction(0);
      w.applyFaults();
      freshCompletion(w, 1); // a last (never fully cached) batch reveals any hole at the tail
      w.flushEvents();
      await(() -> sink.view().equals(truth(w)), Duration.ofSeconds(15));
      assertThat(
              metrics.count("sightline.event.sequence.gaps", "dialect", "vllm", "closed", "true"))
          .isPositive();
      // A resync is still allowed: on a loaded machine a replay answer can time out twice, and
      // then clear-and-rebuild must also end at the true cache (asserted above).
    }
  }

  @Test
  void trtllmWorkerIsPolledIntoTheTrueCacheAndGapsAreNeverSilentlyStale() throws Exception {
    IngestFixtures.StaticRegistry registry = new IngestFixtures.StaticRegistry();
    MirrorSink sink = new MirrorSink();
    IngestMetrics metrics = IngestMetrics.standalone();
    Random rnd = new Random(11);
    try (SimulatedWorker w = SimulatedWorker.start(options(Dialect.TRTLLM));
        EventIngestion ingestion =
            new EventIngestion(
                registry,
                new InProcessKvEventBus(),
                sink,
                BridgeOwnership.all(),
                null,
                metrics,
                EventIngestion.Settings.defaults(),
                http)) {
      ingestion.start();
      registry.put(registered(w, KvEventSource.trtllmPoll(w.baseUrl() + "/kv_cache_events", 20)));
      for (int i = 0; i < 20; i++) {
        completion(w, rnd);
      }
      await(() -> sink.view().equals(truth(w)) && !truth(w).isEmpty(), Duration.ofSeconds(15));
      w.faults().dropEventFraction(0.5);
      w.applyFaults();
      for (int i = 0; i < 10; i++) {
        completion(w, rnd);
      }
      w.faults().dropEventFraction(0);
      w.applyFaults();
      freshCompletion(w, 2);
      await(
          () -> metrics.count("sightline.event.sequence.gaps", "dialect", "trtllm") > 0,
          Duration.ofSeconds(15));
      Thread.sleep(300); // let the last polls land
      // No replay for TRT-LLM: after the clear, the router holds a subset of the truth — never
      // a block the worker no longer has.
      Map<Long, Integer> truth = truth(w);
      assertThat(truth.keySet()).containsAll(sink.view().keySet());
      assertThat(sink.clears).isPositive();
    }
  }
}
