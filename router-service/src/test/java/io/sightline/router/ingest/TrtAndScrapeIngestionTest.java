package io.sightline.router.ingest;

import static io.sightline.router.ingest.IngestFixtures.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.KvEventSource;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.routing.event.KvEvent;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fake trtllm-serve (JDK HTTP server): {@code POST /kv_cache_events} drains a queue like the real
 * endpoint; {@code GET /metrics} returns JSON iteration stats; {@code GET /vllm-metrics} Prometheus
 * text.
 */
@Timeout(60)
class TrtAndScrapeIngestionTest {

  private HttpServer server;
  private final ConcurrentLinkedQueue<String> eventResponses = new ConcurrentLinkedQueue<>();
  private final AtomicInteger polls = new AtomicInteger();
  private final AtomicReference<String> trtMetrics = new AtomicReference<>("[]");
  private volatile boolean metricsUp = true;

  @BeforeEach
  void startServer() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/kv_cache_events",
        ex -> {
          polls.incrementAndGet();
          String body =
              "POST".equals(ex.getRequestMethod())
                  ? java.util.Objects.requireNonNullElse(eventResponses.poll(), "[]")
                  : "[]";
          send(ex, 200, body);
        });
    server.createContext("/metrics", ex -> send(ex, metricsUp ? 200 : 503, trtMetrics.get()));
    server.createContext(
        "/vllm-metrics",
        ex ->
            send(
                ex,
                metricsUp ? 200 : 503,
                "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 4\n"
                    + "vllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 1\n"
                    + "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.5\n"));
    server.start();
  }

  private static void send(com.sun.net.httpserver.HttpExchange ex, int status, String body)
      throws java.io.IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(status, b.length);
    try (OutputStream o = ex.getResponseBody()) {
      o.write(b);
    }
  }

  @AfterEach
  void stopServer() {
    server.stop(0);
  }

  private String base() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private static String stored(long id, long hash, int first) {
    return "{\"event_id\":"
        + id
        + ",\"window_size\":64,\"data\":{\"type\":\"stored\",\"parent_hash\":null,\"blocks\":[{"
        + "\"type\":\"stored_block\",\"block_hash\":"
        + hash
        + ",\"tokens\":[{\"type\":\"unique_token\",\"token_id\":"
        + first
        + ",\"token_extra_id\":0},{\"type\":\"unique_token\",\"token_id\":"
        + (first + 1)
        + ",\"token_extra_id\":0}],\"cache_level\":0,\"priority\":35,\"mm_keys\":[]}]}}";
  }

  private WorkerInstance trtWorker(String metricsPath) {
    return new WorkerInstance(
        null,
        "trt-1",
        "m",
        null,
        base(),
        BackendKind.TRTLLM,
        1,
        2,
        KvEventSource.trtllmPoll(base() + "/kv_cache_events", 20),
        metricsPath == null ? null : base() + metricsPath,
        Map.of(),
        null,
        null);
  }

  @Test
  void pollsDestructivelyAndClearsOnGaps() throws Exception {
    IngestFixtures.StaticRegistry registry = new IngestFixtures.StaticRegistry();
    IngestFixtures.RecordingSink sink = new IngestFixtures.RecordingSink();
    IngestMetrics metrics = IngestMetrics.standalone();
    eventResponses.add(
        "[{\"event_id\":0,\"window_size\":64,\"data\":{\"type\":\"created\","
            + "\"num_blocks_per_cache_level\":[100,0]}},"
            + stored(1, 11, 1)
            + ","
            + stored(2, 12, 3)
            + "]");
    try (EventIngestion ingestion =
        new EventIngestion(
            registry,
            new InProcessKvEventBus(),
            sink,
            BridgeOwnership.all(),
            null,
            metrics,
            EventIngestion.Settings.defaults(),
            HttpClient.newHttpClient())) {
      ingestion.start();
      registry.put(trtWorker(null));
      await(() -> sink.events.size() == 2, Duration.ofSeconds(10));
      eventResponses.add("[" + stored(5, 15, 9) + "]"); // ids 3 and 4 were lost
      await(() -> sink.events.size() == 4, Duration.ofSeconds(10));
      assertThat(sink.trace()).containsExactly("11", "12", "C", "15");
      KvEvent.Stored s = (KvEvent.Stored) sink.events.get(3);
      assertThat(s.tokenIds()).containsExactly(9, 10);
      assertThat(metrics.count("sightline.event.sequence.gaps", "dialect", "trtllm")).isEqualTo(1);
      assertThat(metrics.count("sightline.event.resyncs", "dialect", "trtllm")).isEqualTo(1);
      int before = polls.get();
      Thread.sleep(200);
      assertThat(polls.get()).isGreaterThan(before); // keeps polling at its interval
    }
  }

  @Test
  void scrapesBothDialectsAndMarksStaleWorkers() throws Exception {
    IngestMetrics metrics = IngestMetrics.standalone();
    LoadBoard board = new LoadBoard(Duration.ofMillis(300));
    trtMetrics.set(
        "[{\"iter\":7,\"attentionDpRank\":0,\"numActiveRequests\":2,\"numQueuedRequests\":3,"
            + "\"kvCacheStats\":{\"maxNumBlocks\":10,\"usedNumBlocks\":4}}]");
    try (LoadScraper scraper =
        new LoadScraper(
            board,
            HttpClient.newHttpClient(),
            metrics,
            Duration.ofMillis(50),
            Duration.ofSeconds(1))) {
      scraper.setTargets(
          java.util.List.of(
              new LoadScraper.Target("t", "trtllm", java.net.URI.create(base() + "/metrics")),
              new LoadScraper.Target("v", "vllm", java.net.URI.create(base() + "/vllm-metrics"))));
      scraper.start();
      await(
          () -> board.fresh("t", 0).isPresent() && board.fresh("v", 0).isPresent(),
          Duration.ofSeconds(5));
      ScrapedLoad t = board.fresh("t", 0).get();
      assertThat(t.running()).isEqualTo(2);
      assertThat(t.waiting()).isEqualTo(3);
      assertThat(t.kvUsage()).isEqualTo(0.4);
      ScrapedLoad v = board.fresh("v", 0).get();
      assertThat(v.running()).isEqualTo(4);
      assertThat(v.kvUsage()).isEqualTo(0.5);
      trtMetrics.set("[]"); // idle TRT-LLM: zero requests, KV usage kept
      await(() -> board.fresh("t", 0).get().running() == 0, Duration.ofSeconds(5));
      assertThat(board.fresh("t", 0).get().kvUsage()).isEqualTo(0.4);
      metricsUp = false;
      await(() -> board.staleCount() == 2, Duration.ofSeconds(5));
      assertThat(board.fresh("v", 0)).isEmpty();
      assertThat(board.latest("v", 0)).isPresent();
      assertThat(metrics.count("sightline.scrape.failures", "dialect", "vllm")).isPositive();
      assertThat(metrics.registry().get("sightline.scrape.stale.workers").gauge().value())
          .isEqualTo(2);
    }
  }
}
