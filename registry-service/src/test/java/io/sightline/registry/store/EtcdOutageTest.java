package io.sightline.registry.store;

import static io.sightline.registry.Fixtures.card;
import static io.sightline.registry.Fixtures.leased;
import static io.sightline.registry.Fixtures.worker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sightline.registry.client.LocalRegistryClient;
import io.sightline.registry.client.RegistryEvent;
import io.sightline.registry.model.ModelCard;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills etcd (SIGKILL) under a registry writer and a client holding the cache, restarts it on the
 * same data directory, and checks the "done when": the cache keeps serving during the
 * outage, no card is lost, the client converges after the restart, and a worker whose heartbeats
 * stop is removed within TTL + 2 s.
 */
class EtcdOutageTest {
  @TempDir Path dir;

  @Test
  void clientSurvivesAnEtcdCrashAndConverges() throws Exception {
    try (PrivateEtcd etcd = new PrivateEtcd(dir.resolve("etcd"))) {
      etcd.start();
      String prefix = "/outage-test";
      Duration timeout = Duration.ofSeconds(2);
      ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor();
      try (EtcdRegistryStore writer = new EtcdRegistryStore(etcd.endpoint(), prefix, timeout);
          EtcdRegistryStore readerStore = new EtcdRegistryStore(etcd.endpoint(), prefix, timeout);
          LocalRegistryClient client =
              new LocalRegistryClient(
                  readerStore,
                  Duration.ofMillis(100),
                  Duration.ofMillis(500),
                  Duration.ofMillis(300))) {
        List<RegistryEvent> events = new CopyOnWriteArrayList<>();
        client.addListener(events::add);
        for (String m : List.of("m1", "m2", "m3")) {
          writer.putModel(card(m, m + "-alias"), RegistryStore.ANY_REVISION);
        }
        writer.putWorker(worker("static", "m1"), RegistryStore.ANY_REVISION);
        writer.putWorker(leased("beating", "m2", 3), RegistryStore.ANY_REVISION);
        heartbeats.scheduleWithFixedDelay(
            () -> {
              try {
                writer.keepAlive("beating");
              } catch (RuntimeException e) {
                // etcd is down: the worker keeps trying, like a real one
              }
            },
            500,
            500,
            TimeUnit.MILLISECONDS);
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> client.models().size() == 3 && client.workers().size() == 2);
        assertThat(client.connected()).isTrue();

        etcd.kill();
        await().atMost(Duration.ofSeconds(5)).until(() -> !client.connected());
        // the cache keeps serving the last known fleet
        assertThat(client.models()).extracting(ModelCard::name).containsExactly("m1", "m2", "m3");
        assertThat(client.model("m2-alias")).isPresent();
        assertThat(client.workers("m1")).extracting(w -> w.id()).containsExactly("static");
        assertThat(client.workers("m2")).extracting(w -> w.id()).containsExactly("beating");
        long t = System.nanoTime();
        assertThatThrownBy(() -> writer.putModel(card("m4"), RegistryStore.ANY_REVISION))
            .isInstanceOf(StoreUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - t)).isLessThan(Duration.ofSeconds(5));
        assertThat(events)
            .anyMatch(e -> e instanceof RegistryEvent.ConnectionChanged c && !c.connected());

        Thread.sleep(1000);
        etcd.start();
        await().atMost(Duration.ofSeconds(15)).until(client::connected);
        await()
            .atMost(Duration.ofSeconds(10))
            .ignoreExceptions()
            .until(() -> writer.putModel(card("m4"), RegistryStore.ANY_REVISION) > 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> client.model("m4").isPresent());
        assertThat(client.models())
            .extracting(ModelCard::name)
            .containsExactly("m1", "m2", "m3", "m4");
        assertThat(writer.snapshot().models()).hasSize(4);
        assertThat(client.worker("static")).isPresent();
        assertThat(client.worker("beating")).as("heartbeats resumed after the restart").isPresent();

        // a worker that stops heartbeating is removed within TTL + 2 s, and the client follows
        long registered = System.nanoTime();
        writer.putWorker(leased("dead", "m3", 2), RegistryStore.ANY_REVISION);
        await()
            .atMost(Duration.ofSeconds(4))
            .until(
                () ->
                    events.stream()
                        .anyMatch(
                            e ->
                                e instanceof RegistryEvent.WorkerPut p
                                    && p.worker().id().equals("dead")));
        await()
            .atMost(Duration.ofSeconds(2 + 2))
            .pollInterval(Duration.ofMillis(50))
            .until(() -> client.worker("dead").isEmpty());
        Duration gone = Duration.ofNanos(System.nanoTime() - registered);
        assertThat(gone).isBetween(Duration.ofMillis(1500), Duration.ofSeconds(4));
        assertThat(events)
            .anyMatch(
                e -> e instanceof RegistryEvent.WorkerRemoved r && r.worker().id().equals("dead"));
        assertThat(client.worker("beating")).isPresent();
        assertThat(client.revision()).isEqualTo(readerStore.snapshot().revision());
      } finally {
        heartbeats.shutdownNow();
      }
    }
  }

  @Test
  void compactedHistoryMakesTheWatchAskForAResyncAndTheClientReloads() throws Exception {
    try (PrivateEtcd etcd = new PrivateEtcd(dir.resolve("etcd-compact"))) {
      etcd.start();
      try (EtcdRegistryStore store =
              new EtcdRegistryStore(etcd.endpoint(), "/compact-test", Duration.ofSeconds(2));
          io.etcd.jetcd.Client raw =
              io.etcd.jetcd.Client.builder().endpoints(etcd.endpoint()).build()) {
        long r1 = store.putModel(card("a"), RegistryStore.ANY_REVISION);
        store.putModel(card("b"), RegistryStore.ANY_REVISION);
        long r3 = store.deleteModel("a", RegistryStore.ANY_REVISION);
        raw.getKVClient().compact(r3).get(5, TimeUnit.SECONDS);

        List<Long> compactions = new CopyOnWriteArrayList<>();
        List<StoreEvent> seen = new CopyOnWriteArrayList<>();
        store.watch(
            r1,
            new StoreWatcher() {
              @Override
              public void onEvents(List<StoreEvent> events) {
                seen.addAll(events);
              }

              @Override
              public void onCompacted(long compactRevision) {
                compactions.add(compactRevision);
              }

              @Override
              public void onError(Throwable error) {}
            });
        await().atMost(Duration.ofSeconds(5)).until(() -> !compactions.isEmpty());
        assertThat(compactions.get(0)).isEqualTo(r3);
        assertThat(seen).isEmpty();

        // a client that starts from scratch is unaffected (snapshot, then watch after it)
        try (LocalRegistryClient client = new LocalRegistryClient(store)) {
          assertThat(client.models()).extracting(ModelCard::name).containsExactly("b");
          store.putModel(card("c"), RegistryStore.ANY_REVISION);
          await().atMost(Duration.ofSeconds(5)).until(() -> client.model("c").isPresent());
        }
      }
    }
  }
}
