package io.sightline.router.ingest;

import static io.sightline.router.ingest.IngestFixtures.await;
import static io.sightline.router.ingest.IngestFixtures.vllmBatch;
import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.adapter.vllm.FakeVllmPublisher;
import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.KvEventSource;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.routing.event.KvEvent;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Embedded mode end to end: registry → vLLM bridge (real ZMQ) → in-process bus → sink. */
@Timeout(60)
class VllmIngestionTest {

  static WorkerInstance vllmWorker(String id, FakeVllmPublisher pub) {
    WorkerInstance w = WorkerInstance.of(id, "m", "http://127.0.0.1:1", BackendKind.VLLM, 2);
    return new WorkerInstance(
        w.schemaVersion(),
        w.id(),
        w.model(),
        null,
        w.baseUrl(),
        w.dialect(),
        1,
        2,
        KvEventSource.zmq(pub.endpoint(), pub.replayEndpoint()),
        null,
        w.labels(),
        w.state(),
        null);
  }

  @Test
  void eventsReachTheSinkInOrderWithHolesReplayedAndCounted() throws Exception {
    IngestFixtures.StaticRegistry registry = new IngestFixtures.StaticRegistry();
    IngestFixtures.RecordingSink sink = new IngestFixtures.RecordingSink();
    IngestMetrics metrics = IngestMetrics.standalone();
    try (FakeVllmPublisher pub = new FakeVllmPublisher(1000);
        EventIngestion ingestion =
            new EventIngestion(
                registry,
                new InProcessKvEventBus(),
                sink,
                BridgeOwnership.all(),
                null,
                metrics,
                new EventIngestion.Settings(
                    Duration.ofMillis(100),
                    Duration.ofSeconds(2),
                    Duration.ofMillis(50),
                    Duration.ofSeconds(1)),
                HttpClient.newHttpClient())) {
      pub.publish(vllmBatch(100), true); // before the router exists: caught up by replay
      ingestion.start();
      registry.put(vllmWorker("w1", pub));
      await(() -> sink.events.size() == 1, Duration.ofSeconds(10));
      assertThat(ingestion.bridgedWorkers()).containsExactly("w1");
      Thread.sleep(300); // SUB connected
      List<String> expected = new ArrayList<>(List.of("100"));
      for (int i = 1; i <= 20; i++) {
        pub.publish(vllmBatch(100 + i), i % 7 == 0); // every 7th batch lost on the wire
        expected.add(Long.toString(100 + i));
      }
      await(() -> sink.events.size() == 21, Duration.ofSeconds(10));
      assertThat(sink.trace()).isEqualTo(expected);
      // plane sequences strictly increase
      long prev = -1;
      for (KvEvent e : sink.events) {
        assertThat(e.sequence()).isGreaterThan(prev);
        assertThat(e.workerId()).isEqualTo("w1");
        prev = e.sequence();
      }
      assertThat(metrics.count("sightline.event.sequence.gaps", "closed", "true")).isEqualTo(2);
      assertThat(metrics.count("sightline.event.replays", "result", "ok")).isEqualTo(2);
      assertThat(metrics.count("sightline.events.applied", "outcome", "applied")).isEqualTo(21);
      assertThat(metrics.count("sightline.event.resyncs", "dialect", "vllm")).isZero();
    }
  }

  @Test
  void unreplayableHoleClearsThenRebuildsFromTheReplayBuffer() throws Exception {
    IngestFixtures.StaticRegistry registry = new IngestFixtures.StaticRegistry();
    IngestFixtures.RecordingSink sink = new IngestFixtures.RecordingSink();
    IngestMetrics metrics = IngestMetrics.standalone();
    try (FakeVllmPublisher pub = new FakeVllmPublisher(3);
        EventIngestion ingestion =
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
      registry.put(vllmWorker("w1", pub));
      await(() -> ingestion.bridgedWorkers().contains("w1"), Duration.ofSeconds(10));
      Thread.sleep(300);
      pub.publish(vllmBatch(1), false);
      await(() -> sink.events.size() == 1, Duration.ofSeconds(10));
      for (int i = 2; i <= 6; i++) {
        pub.publish(vllmBatch(i), true); // 5 lost, buffer keeps only 3
      }
      pub.publish(vllmBatch(7), false);
      await(() -> sink.trace().contains("7"), Duration.ofSeconds(10));
      // clear, then what the publisher still buffers before 7 (5, 6), then 7
      assertThat(sink.trace()).containsExactly("1", "C", "5", "6", "7");
      assertThat(metrics.count("sightline.event.resyncs", "dialect", "vllm")).isEqualTo(1);
      assertThat(metrics.count("sightline.event.sequence.gaps", "closed", "false")).isEqualTo(1);
    }
  }
}
