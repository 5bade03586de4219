package io.sightline.router.ingest;

import static io.sightline.router.ingest.IngestFixtures.await;
import static io.sightline.router.ingest.IngestFixtures.vllmBatch;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.Client;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.sightline.adapter.vllm.FakeVllmPublisher;
import io.sightline.testsupport.Infra;
import io.sightline.testsupport.Service;
import io.sightline.testsupport.UsesInfra;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The distributed mode against real NATS JetStream and etcd: replicas elect one bridge owner per
 * worker, all replicas apply the same stream, a late replica replays it, and a crashed owner is
 * replaced without losing events (the new owner resumes from the plane's last source sequence
 * through the worker's replay socket).
 */
@UsesInfra({Service.NATS, Service.ETCD})
@Timeout(120)
class DistributedIngestionTest {

  private final String id = UUID.randomUUID().toString().replace("-", "");
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private NatsKvEventBus.Settings natsSettings;
  private NatsKvEventBus admin;

  @BeforeEach
  void setUp() throws Exception {
    natsSettings =
        new NatsKvEventBus.Settings("DIST_" + id, "dist." + id, Duration.ofMinutes(5), -1, true);
    Connection c = Nats.connect(Infra.endpoint(Service.NATS));
    closeables.add(c);
    admin = new NatsKvEventBus(c, natsSettings);
  }

  @AfterEach
  void tearDown() throws Exception {
    admin.deleteStream();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      try {
        closeables.get(i).close();
      } catch (Exception e) {
        // already closed
      }
    }
  }

  record Replica(EventIngestion ingestion, IngestFixtures.RecordingSink sink, Client etcd) {}

  private Replica replica(String node, IngestFixtures.StaticRegistry registry) throws Exception {
    Connection c = Nats.connect(Infra.endpoint(Service.NATS));
    closeables.add(c);
    Client etcd = Client.builder().endpoints(Infra.endpoint(Service.ETCD).split(",")).build();
    closeables.add(etcd);
    IngestFixtures.RecordingSink sink = new IngestFixtures.RecordingSink();
    EventIngestion ingestion =
        new EventIngestion(
            registry,
            new NatsKvEventBus(c, natsSettings),
            sink,
            new EtcdBridgeOwnership(
                etcd, false, "/sightline-test/" + id + "/bridge/", node, Duration.ofSeconds(2)),
            null,
            IngestMetrics.standalone(),
            new EventIngestion.Settings(
                Duration.ofMillis(200),
                Duration.ofSeconds(2),
                Duration.ofMillis(50),
                Duration.ofSeconds(1)),
            HttpClient.newHttpClient());
    closeables.add(ingestion);
    ingestion.start();
    return new Replica(ingestion, sink, etcd);
  }

  private static List<String> hashes(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i <= to; i++) {
      out.add(Integer.toString(1000 + i));
    }
    return out;
  }

  @Test
  void replicasConvergeALateReplicaReplaysAndACrashedOwnerIsReplacedWithoutLoss() throws Exception {
    try (FakeVllmPublisher pub = new FakeVllmPublisher(10_000)) {
      IngestFixtures.StaticRegistry registry = new IngestFixtures.StaticRegistry();
      registry.put(VllmIngestionTest.vllmWorker("w1", pub));
      Replica a = replica("a", registry);
      await(() -> a.ingestion().bridgedWorkers().contains("w1"), Duration.ofSeconds(10));
      Replica b = replica("b", registry);
      Thread.sleep(500); // SUB connected, b reconciled (and owns nothing)
      assertThat(b.ingestion().bridgedWorkers()).isEmpty();

      for (int i = 0; i < 10; i++) {
        pub.publish(vllmBatch(1000 + i), false);
      }
      await(
          () -> a.sink().events.size() == 10 && b.sink().events.size() == 10,
          Duration.ofSeconds(15));
      assertThat(a.sink().trace()).isEqualTo(hashes(0, 9));
      assertThat(b.sink().trace()).isEqualTo(a.sink().trace());
      assertThat(b.sink().events).isEqualTo(a.sink().events);

      // Crash the owner: its etcd client dies first, so its lease is never revoked.
      a.etcd().close();
      a.ingestion().close();
      for (int i = 10; i < 20; i++) {
        pub.publish(vllmBatch(1000 + i), false); // nobody subscribed for a while
        Thread.sleep(50);
      }
      await(() -> b.ingestion().bridgedWorkers().contains("w1"), Duration.ofSeconds(20));
      await(() -> b.sink().events.size() == 20, Duration.ofSeconds(15));
      pub.publish(vllmBatch(1020), false);
      await(() -> b.sink().events.size() == 21, Duration.ofSeconds(15));
      assertThat(b.sink().trace()).isEqualTo(hashes(0, 20)); // nothing lost, no clear
      long prev = -1;
      for (var e : b.sink().events) {
        assertThat(e.sequence()).isGreaterThan(prev);
        prev = e.sequence();
      }

      Replica late = replica("late", registry);
      await(() -> late.sink().events.size() == 21, Duration.ofSeconds(15));
      assertThat(late.sink().events).isEqualTo(b.sink().events);
    }
  }
}
