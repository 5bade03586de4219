package io.sightline.registry.client;

import static io.sightline.registry.Fixtures.apiKey;
import static io.sightline.registry.Fixtures.card;
import static io.sightline.registry.Fixtures.worker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.store.InMemoryRegistryStore;
import io.sightline.registry.store.RegistryStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LocalRegistryClientTest {
  private final FlakyStore store =
      new FlakyStore(new InMemoryRegistryStore(null, 5, Duration.ofMillis(50)));
  private LocalRegistryClient client;

  @AfterEach
  void close() {
    if (client != null) {
      client.close();
    }
    store.close();
  }

  private LocalRegistryClient start() {
    client =
        new LocalRegistryClient(
            store, Duration.ofMillis(50), Duration.ofMillis(200), Duration.ofMillis(100));
    return client;
  }

  @Test
  void startsFullAndResolvesAliasesAndWorkersByModel() {
    RegistryStore b = store.backend();
    b.putModel(card("b", "b-alias"), RegistryStore.ANY_REVISION);
    b.putModel(card("a"), RegistryStore.ANY_REVISION);
    b.putWorker(worker("w2", "b"), RegistryStore.ANY_REVISION);
    b.putWorker(worker("w1", "b"), RegistryStore.ANY_REVISION);
    b.putWorker(worker("w3", "a"), RegistryStore.ANY_REVISION);
    start();
    assertThat(client.connected()).isTrue();
    assertThat(client.models()).extracting(ModelCard::name).containsExactly("a", "b");
    assertThat(client.model("b-alias").orElseThrow().name()).isEqualTo("b");
    assertThat(client.model("nope")).isEmpty();
    assertThat(client.model(null)).isEmpty();
    assertThat(client.workers("b-alias"))
        .extracting(WorkerInstance::id)
        .containsExactly("w1", "w2");
    assertThat(client.workers("unknown")).isEmpty();
    assertThat(client.revision()).isEqualTo(b.snapshot().revision());
  }

  @Test
  void listenersSeeChangesInRevisionOrderWithPreviousValues() {
    start();
    List<RegistryEvent> events = new CopyOnWriteArrayList<>();
    client.addListener(events::add);
    RegistryStore b = store.backend();
    long r1 = b.putModel(card("m"), RegistryStore.ANY_REVISION);
    long r2 = b.putModel(card("m").withKvBlockSize(32), RegistryStore.ANY_REVISION);
    long r3 = b.deleteModel("m", RegistryStore.ANY_REVISION);
    long r4 = b.putApiKey(apiKey("k"), RegistryStore.ANY_REVISION);
    long r5 = b.deleteApiKey("k", RegistryStore.ANY_REVISION);
    await().atMost(Duration.ofSeconds(2)).until(() -> events.size() == 5);
    assertThat(events)
        .containsExactly(
            new RegistryEvent.ModelPut(card("m"), null, r1),
            new RegistryEvent.ModelPut(card("m").withKvBlockSize(32), card("m"), r2),
            new RegistryEvent.ModelRemoved(card("m").withKvBlockSize(32), r3),
            new RegistryEvent.ApiKeyPut(apiKey("k"), null, r4),
            new RegistryEvent.ApiKeyRemoved(apiKey("k"), r5));
    assertThat(client.apiKeys()).isEmpty();
  }

  @Test
  void resumesFromItsRevisionAfterAShortOutage() {
    store.backend().putModel(card("m1"), RegistryStore.ANY_REVISION);
    start();
    List<RegistryEvent> events = new CopyOnWriteArrayList<>();
    client.addListener(events::add);
    store.breakLink();
    await().atMost(Duration.ofSeconds(2)).until(() -> !client.connected());
    store.backend().putModel(card("m2"), RegistryStore.ANY_REVISION);
    assertThat(client.model("m2")).as("partitioned: stale but serving").isEmpty();
    assertThat(client.model("m1")).isPresent();
    store.heal();
    await().atMost(Duration.ofSeconds(3)).until(() -> client.model("m2").isPresent());
    assertThat(client.connected()).isTrue();
    assertThat(events).noneMatch(e -> e instanceof RegistryEvent.Resynced);
    assertThat(events)
        .filteredOn(e -> e instanceof RegistryEvent.ConnectionChanged)
        .extracting(e -> ((RegistryEvent.ConnectionChanged) e).connected())
        .containsExactly(false, true);
  }

  @Test
  void reloadsAndEmitsTheDifferencesWhenTheHistoryIsGone() {
    RegistryStore b = store.backend();
    b.putModel(card("keep"), RegistryStore.ANY_REVISION);
    b.putModel(card("drop"), RegistryStore.ANY_REVISION);
    b.putWorker(worker("w-drop", "drop"), RegistryStore.ANY_REVISION);
    start();
    List<RegistryEvent> events = new CopyOnWriteArrayList<>();
    client.addListener(events::add);
    store.breakLink();
    await().atMost(Duration.ofSeconds(2)).until(() -> !client.connected());
    // more changes than the store's 5-event history while the client is cut off
    b.deleteWorker("w-drop", RegistryStore.ANY_REVISION);
    b.deleteModel("drop", RegistryStore.ANY_REVISION);
    for (int i = 0; i < 6; i++) {
      b.putModel(card("new" + i), RegistryStore.ANY_REVISION);
    }
    b.putModel(card("keep").withKvBlockSize(64), RegistryStore.ANY_REVISION);
    b.putApiKey(apiKey("late-key"), RegistryStore.ANY_REVISION);
    store.heal();
    await()
        .atMost(Duration.ofSeconds(3))
        .until(() -> events.stream().anyMatch(e -> e instanceof RegistryEvent.Resynced));
    assertThat(client.models()).hasSize(7);
    assertThat(client.model("drop")).isEmpty();
    assertThat(client.worker("w-drop")).isEmpty();
    assertThat(client.model("keep").orElseThrow().kvBlockSize()).isEqualTo(64);
    assertThat(client.revision()).isEqualTo(b.snapshot().revision());
    assertThat(events)
        .anyMatch(e -> e instanceof RegistryEvent.ModelRemoved r && r.card().name().equals("drop"));
    assertThat(events)
        .anyMatch(
            e -> e instanceof RegistryEvent.WorkerRemoved r && r.worker().id().equals("w-drop"));
    assertThat(events)
        .anyMatch(
            e ->
                e instanceof RegistryEvent.ModelPut p
                    && p.card().name().equals("keep")
                    && p.previous().kvBlockSize() == 16);
  }

  @Test
  void startsEmptyWhenTheStoreIsDownAndFillsWhenItComesBack() {
    store.backend().putModel(card("m"), RegistryStore.ANY_REVISION);
    store.breakLink();
    start();
    assertThat(client.connected()).isFalse();
    assertThat(client.models()).isEmpty();
    store.heal();
    await().atMost(Duration.ofSeconds(3)).until(() -> client.model("m").isPresent());
    assertThat(client.connected()).isTrue();
  }

  @Test
  void aFailingListenerDoesNotStopOthers() {
    start();
    client.addListener(
        e -> {
          throw new IllegalStateException("boom");
        });
    List<RegistryEvent> events = new CopyOnWriteArrayList<>();
    client.addListener(events::add);
    store.backend().putModel(card("m"), RegistryStore.ANY_REVISION);
    await().atMost(Duration.ofSeconds(2)).until(() -> events.size() == 1);
    store.backend().putModel(card("n"), RegistryStore.ANY_REVISION);
    await().atMost(Duration.ofSeconds(2)).until(() -> events.size() == 2);
  }
}
