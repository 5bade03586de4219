package io.sightline.router.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.sightline.registry.client.LocalRegistryClient;
import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.store.InMemoryRegistryStore;
import io.sightline.registry.store.RegistryStore;
import io.sightline.router.api.RouteDecision;
import io.sightline.router.api.RouteRequest;
import io.sightline.router.api.RouterJson;
import io.sightline.router.engine.RouterEngine;
import io.sightline.router.engine.RouterMetrics;
import io.sightline.router.engine.RouterStateLoop;
import io.sightline.router.engine.WorkerMetricsSource;
import io.sightline.router.ingest.EventBatchMessage;
import io.sightline.router.ingest.NatsKvEventBus;
import io.sightline.router.model.ModelRuntimes;
import io.sightline.router.state.IndexSnapshot;
import io.sightline.router.state.RedisStateBackend;
import io.sightline.router.state.StateBackend;
import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import io.sightline.routing.index.IndexConfig;
import io.sightline.routing.selection.LoadTracker;
import io.sightline.routing.selection.RouterConfig;
import io.sightline.testsupport.Infra;
import io.sightline.testsupport.Service;
import io.sightline.testsupport.UsesInfra;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 7 "done when" (1) and (2) at the routing level, over real NATS JetStream and real Redis:
 * router replicas that apply the same event stream give identical explanations, and a replica
 * started late warms from the newest Redis snapshot plus the JetStream stream after it — applying
 * only the events the snapshot does not reflect — and then answers exactly like the others.
 */
@UsesInfra({Service.NATS, Service.REDIS})
class ReplicatedRoutingTest {
  private static final int BLOCK = 4;
  private final String id = UUID.randomUUID().toString().substring(0, 8);
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private NatsKvEventBus.Settings natsSettings;
  private NatsKvEventBus publisher;
  private RegistryStore store;
  private final AtomicLong[] planeSeq = {new AtomicLong(), new AtomicLong(), new AtomicLong()};

  /** One router replica: real runtimes/index/selector, Redis state, JetStream subscription. */
  final class Replica {
    final LocalRegistryClient registry;
    final ModelRuntimes runtimes;
    final RouterEngine engine;
    final RouterStateLoop loop;
    final StateBackend state;
    final AtomicInteger messagesApplied = new AtomicInteger();
    final long resumedAfter;

    Replica(String name, boolean warmStart) throws Exception {
      registry =
          new LocalRegistryClient(
              store, Duration.ofMillis(50), Duration.ofMillis(500), Duration.ofMillis(200));
      closeables.add(registry);
      state =
          new RedisStateBackend(
              Infra.endpoint(Service.REDIS),
              "sightline-it:" + id,
              Duration.ofSeconds(5),
              10_000,
              Duration.ofMinutes(5));
      closeables.add(state);
      runtimes =
          new ModelRuntimes(
              registry,
              new ModelRuntimes.Options(
                  IndexConfig.DEFAULTS, true, Files.createTempDirectory("hf-"), 16));
      closeables.add(runtimes);
      long after = 0;
      if (warmStart) {
        Optional<IndexSnapshot> snap = state.snapshots().newest();
        assertThat(snap).as("a snapshot to warm from").isPresent();
        after = runtimes.restore(snap.get().data());
      }
      resumedAfter = after;
      runtimes.start();
      RouterMetrics metrics = new RouterMetrics(new SimpleMeterRegistry());
      LoadTracker tracker = new LoadTracker();
      var shared = state.load(name, 5_000);
      var predictions = state.predictions(name);
      engine =
          new RouterEngine(
              registry,
              runtimes,
              tracker,
              shared,
              predictions,
              WorkerMetricsSource.NONE,
              metrics,
              new RouterEngine.Settings(name, RouterConfig.DEFAULTS, true));
      loop =
          new RouterStateLoop(
              engine,
              runtimes,
              shared,
              predictions,
              state.snapshots(),
              metrics,
              name,
              Duration.ofMillis(100),
              Duration.ZERO);
      Connection c = Nats.connect(Infra.endpoint(Service.NATS));
      closeables.add(c);
      NatsKvEventBus bus = new NatsKvEventBus(c, natsSettings);
      closeables.add(bus);
      closeables.add(
          bus.subscribe(
              after,
              (msg, seq) -> {
                messagesApplied.incrementAndGet();
                for (KvEvent e : msg.events()) {
                  runtimes.apply(e, seq);
                }
              }));
    }

    void awaitSequence(long seq) throws InterruptedException {
      long deadline = System.currentTimeMillis() + 15_000;
      while (runtimes.lastStreamSequence() < seq && System.currentTimeMillis() < deadline) {
        Thread.sleep(20);
      }
      assertThat(runtimes.lastStreamSequence()).isGreaterThanOrEqualTo(seq);
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    natsSettings =
        new NatsKvEventBus.Settings("RRT_" + id, "rrt." + id, Duration.ofMinutes(5), -1, true);
    Connection c = Nats.connect(Infra.endpoint(Service.NATS));
    closeables.add(c);
    publisher = new NatsKvEventBus(c, natsSettings);
    store = new InMemoryRegistryStore();
    store.putModel(ModelCard.of("m", BackendKind.VLLM, BLOCK), RegistryStore.ANY_REVISION);
    for (int w = 0; w < 3; w++) {
      store.putWorker(
          WorkerInstance.of("worker_" + w, "m", "http://w" + w, BackendKind.VLLM, BLOCK),
          RegistryStore.ANY_REVISION);
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    publisher.deleteStream();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      try {
        closeables.get(i).close();
      } catch (Exception e) {
        // already closed
      }
    }
  }

  /** Publishes a random workload of stored/removed batches, adding the prompts it caches. */
  private void publishWorkload(Random rnd, int batches, List<int[]> prompts) throws Exception {
    long hashBase = rnd.nextLong() & 0xFFFF_FFFFL;
    for (int b = 0; b < batches; b++) {
      int w = rnd.nextInt(3);
      String worker = "worker_" + w;
      List<KvEvent> events = new ArrayList<>();
      if (!prompts.isEmpty() && rnd.nextInt(5) == 0) {
        // evict the tail block of an earlier prompt on this worker
        int[] p = prompts.get(rnd.nextInt(prompts.size()));
        events.add(
            new KvEvent.Removed(
                worker,
                0,
                planeSeq[w].incrementAndGet(),
                StorageTier.DEVICE,
                new long[] {engineHash(w, p, p.length / BLOCK - 1)}));
      } else {
        int[] prompt = new int[BLOCK * (2 + rnd.nextInt(6))];
        int shared = rnd.nextInt(3); // a few common system prefixes
        for (int i = 0; i < prompt.length; i++) {
          prompt[i] = i < 2 * BLOCK ? 10_000 * (shared + 1) + i : rnd.nextInt(50_000);
        }
        prompts.add(prompt);
        long[] hashes = new long[prompt.length / BLOCK];
        for (int k = 0; k < hashes.length; k++) {
          hashes[k] = engineHash(w, prompt, k);
        }
        events.add(
            KvEvent.Stored.of(
                worker, 0, planeSeq[w].incrementAndGet(), hashes, null, prompt, BLOCK));
      }
      publisher.publish(new EventBatchMessage(worker, 0, b, events));
    }
  }

  /** A worker-specific opaque engine hash of block k of a prompt's prefix. */
  private static long engineHash(int worker, int[] prompt, int k) {
    long h = 1469598103934665603L ^ worker;
    for (int i = 0; i < (k + 1) * BLOCK; i++) {
      h = (h ^ prompt[i]) * 1099511628211L;
    }
    return h;
  }

  private static RouteRequest request(int[] ids) {
    var body = RouterJson.mapper().createObjectNode().put("model", "m");
    var arr = body.putArray("prompt");
    for (int id : ids) {
      arr.add(id);
    }
    return new RouteRequest("m", body, List.of(), false);
  }

  private static List<RouteRequest> probes(List<int[]> prompts) {
    List<RouteRequest> out = new ArrayList<>();
    for (int[] p : prompts) {
      out.add(request(p));
      int[] extended = java.util.Arrays.copyOf(p, p.length + 2 * BLOCK);
      out.add(request(extended));
    }
    return out;
  }

  /** Stream position after {@code messages} publishes (JetStream sequences start at 1). */
  private long streamEnd(int messages) {
    return messages;
  }

  @Test
  void replicasConvergeAndALateReplicaWarmsFromRedisAndJetStream() throws Exception {
    Random rnd = new Random(7);
    List<int[]> prompts = new ArrayList<>();
    Replica a = new Replica("replica-a", false);
    Replica b = new Replica("replica-b", false);

    publishWorkload(rnd, 60, prompts);
    a.awaitSequence(streamEnd(60));
    b.awaitSequence(streamEnd(60));
    int overlapping = 0;
    for (RouteRequest r : probes(prompts)) {
      RouteDecision x = a.engine.explain(r);
      RouteDecision y = b.engine.explain(r);
      assertThat(y.explanation()).isEqualTo(x.explanation());
      assertThat(y.worker()).isEqualTo(x.worker());
      overlapping += x.overlapBlocks() > 0 ? 1 : 0;
    }
    assertThat(overlapping).as("the workload makes most probes hit a cache").isGreaterThan(60);

    // (2) a writes a snapshot to Redis; the stream moves on; c starts late and warms from both
    assertThat(a.loop.snapshotOnce()).isTrue();
    long snapSeq = a.runtimes.lastStreamSequence();
    publishWorkload(rnd, 40, prompts);
    Replica c = new Replica("replica-c", true);
    assertThat(c.resumedAfter).isEqualTo(snapSeq);
    a.awaitSequence(streamEnd(100));
    c.awaitSequence(streamEnd(100));
    assertThat(c.messagesApplied.get())
        .as("c replays only what the snapshot does not reflect")
        .isEqualTo(40);
    for (RouteRequest r : probes(prompts)) {
      assertThat(c.engine.explain(r).explanation()).isEqualTo(a.engine.explain(r).explanation());
    }
    assertThat(c.runtimes.forModel("m").index().stats().entries())
        .isEqualTo(a.runtimes.forModel("m").index().stats().entries());
  }
}
