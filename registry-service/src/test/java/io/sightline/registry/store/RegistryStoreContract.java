package io.sightline.registry.store;

import static io.sightline.registry.Fixtures.apiKey;
import static io.sightline.registry.Fixtures.card;
import static io.sightline.registry.Fixtures.leased;
import static io.sightline.registry.Fixtures.worker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.Versioned;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.model.WorkerState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link RegistryStore} must have; run against the in-memory store and a real
 * etcd. Lease TTLs are 2 s because etcd rounds shorter leases up to its minimum TTL.
 */
abstract class RegistryStoreContract {
  protected RegistryStore store;

  /** A fresh, empty store (its own key space). */
  protected abstract RegistryStore newStore();

  @BeforeEach
  void open() {
    store = newStore();
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  @Test
  void putAndReadModelsWithIncreasingRevisions() {
    long r1 = store.putModel(card("m1"), RegistryStore.ANY_REVISION);
    long r2 = store.putModel(card("m2", "alias-2"), RegistryStore.ANY_REVISION);
    assertThat(r2).isGreaterThan(r1);
    assertThat(store.model("m1")).contains(new Versioned<>(card("m1"), r1));
    assertThat(store.model("m2").orElseThrow().value().aliases()).containsExactly("alias-2");
    assertThat(store.model("absent")).isEmpty();

    Snapshot s = store.snapshot();
    assertThat(s.revision()).isGreaterThanOrEqualTo(r2);
    assertThat(s.models()).extracting(v -> v.value().name()).containsExactlyInAnyOrder("m1", "m2");
    assertThat(s.workers()).isEmpty();
  }

  @Test
  void createOnlyRefusesAnExistingEntry() {
    long r1 = store.putModel(card("m"), RegistryStore.MUST_NOT_EXIST);
    assertThatThrownBy(
            () -> store.putModel(card("m").withKvBlockSize(32), RegistryStore.MUST_NOT_EXIST))
        .isInstanceOfSatisfying(
            RevisionConflictException.class, e -> assertThat(e.actual()).isEqualTo(r1));
    assertThat(store.model("m").orElseThrow().value().kvBlockSize()).isEqualTo(16);
  }

  @Test
  void staleRevisionIsRefusedAndCurrentOneAccepted() {
    long r1 = store.putModel(card("m"), RegistryStore.MUST_NOT_EXIST);
    long r2 = store.putModel(card("m").withKvBlockSize(32), r1);
    assertThat(r2).isGreaterThan(r1);
    assertThatThrownBy(() -> store.putModel(card("m").withKvBlockSize(64), r1))
        .isInstanceOfSatisfying(
            RevisionConflictException.class,
            e -> {
              assertThat(e.expected()).isEqualTo(r1);
              assertThat(e.actual()).isEqualTo(r2);
            });
    assertThat(store.model("m").orElseThrow())
        .isEqualTo(new Versioned<>(card("m").withKvBlockSize(32), r2));
  }

  @Test
  void conditionalUpdateOfAbsentEntryIsAConflict() {
    assertThatThrownBy(() -> store.putModel(card("ghost"), 5))
        .isInstanceOfSatisfying(
            RevisionConflictException.class, e -> assertThat(e.actual()).isZero());
    assertThat(store.model("ghost")).isEmpty();
  }

  @Test
  void deleteChecksExistenceAndRevision() {
    assertThatThrownBy(() -> store.deleteModel("nope", RegistryStore.ANY_REVISION))
        .isInstanceOf(NotFoundException.class);
    long r1 = store.putModel(card("m"), RegistryStore.ANY_REVISION);
    long r2 = store.putModel(card("m").withKvBlockSize(32), RegistryStore.ANY_REVISION);
    assertThatThrownBy(() -> store.deleteModel("m", r1))
        .isInstanceOf(RevisionConflictException.class);
    assertThat(store.model("m")).isPresent();
    long r3 = store.deleteModel("m", r2);
    assertThat(r3).isGreaterThan(r2);
    assertThat(store.model("m")).isEmpty();
    assertThatThrownBy(() -> store.deleteWorker("nobody", RegistryStore.ANY_REVISION))
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void workersRoundTripWithAllFields() {
    WorkerInstance w = worker("w1", "m").withState(WorkerState.DRAINING);
    long r = store.putWorker(w, RegistryStore.MUST_NOT_EXIST);
    assertThat(store.worker("w1")).contains(new Versioned<>(w, r));
    assertThat(store.snapshot().workers()).extracting(Versioned::value).containsExactly(w);
    assertThatThrownBy(() -> store.putWorker(w, RegistryStore.MUST_NOT_EXIST))
        .isInstanceOf(RevisionConflictException.class);
    store.deleteWorker("w1", r);
    assertThat(store.worker("w1")).isEmpty();
  }

  @Test
  void leasedWorkerLapsesWithoutKeepAliveAndStaticOnePersists() {
    store.putWorker(worker("static", "m"), RegistryStore.ANY_REVISION);
    long t0 = System.nanoTime();
    store.putWorker(leased("dying", "m", 2), RegistryStore.ANY_REVISION);
    assertThat(store.worker("dying")).isPresent();
    await()
        .atMost(Duration.ofSeconds(2 + 2))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> store.worker("dying").isEmpty());
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThan(Duration.ofMillis(1500));
    assertThat(store.keepAlive("dying")).isFalse();
    assertThat(store.worker("static")).isPresent();
    assertThat(store.keepAlive("static")).isTrue();
    assertThat(store.keepAlive("unknown")).isFalse();
  }

  @Test
  void keepAliveHoldsALeasedWorker() throws InterruptedException {
    store.putWorker(leased("alive", "m", 2), RegistryStore.ANY_REVISION);
    long until = System.nanoTime() + Duration.ofMillis(3500).toNanos();
    while (System.nanoTime() < until) {
      assertThat(store.keepAlive("alive")).isTrue();
      Thread.sleep(400);
    }
    assertThat(store.worker("alive")).isPresent();
  }

  @Test
  void reRegisteringALeasedWorkerAsStaticDetachesItFromTheLease() {
    store.putWorker(leased("w", "m", 2), RegistryStore.ANY_REVISION);
    store.putWorker(worker("w", "m"), RegistryStore.ANY_REVISION);
    await()
        .during(Duration.ofMillis(3500))
        .atMost(Duration.ofSeconds(5))
        .until(() -> store.worker("w").isPresent());
  }

  @Test
  void watchDeliversChangesInOrderWithPreviousValuesOnDelete() {
    Snapshot s = store.snapshot();
    List<StoreEvent> seen = new CopyOnWriteArrayList<>();
    try (StoreWatch ignored = store.watch(s.revision() + 1, recorder(seen))) {
      long r1 = store.putModel(card("m"), RegistryStore.ANY_REVISION);
      long r2 = store.putWorker(worker("w", "m"), RegistryStore.ANY_REVISION);
      long r3 = store.deleteWorker("w", RegistryStore.ANY_REVISION);
      long r4 = store.deleteModel("m", RegistryStore.ANY_REVISION);
      await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() >= 4);
      assertThat(seen)
          .containsExactly(
              new StoreEvent.ModelPut(card("m"), r1),
              new StoreEvent.WorkerPut(worker("w", "m"), r2),
              new StoreEvent.WorkerDeleted("w", worker("w", "m"), r3),
              new StoreEvent.ModelDeleted("m", card("m"), r4));
    }
  }

  @Test
  void watchReportsLeaseExpiryAsDeletion() {
    List<StoreEvent> seen = new CopyOnWriteArrayList<>();
    long from = store.snapshot().revision() + 1;
    try (StoreWatch ignored = store.watch(from, recorder(seen))) {
      store.putWorker(leased("w", "m", 2), RegistryStore.ANY_REVISION);
      await()
          .atMost(Duration.ofSeconds(2 + 2))
          .until(() -> seen.stream().anyMatch(e -> e instanceof StoreEvent.WorkerDeleted));
      StoreEvent.WorkerDeleted d =
          (StoreEvent.WorkerDeleted)
              seen.stream()
                  .filter(e -> e instanceof StoreEvent.WorkerDeleted)
                  .findFirst()
                  .orElseThrow();
      assertThat(d.id()).isEqualTo("w");
      assertThat(d.previous()).isEqualTo(leased("w", "m", 2));
    }
  }

  @Test
  void watchResumesFromAnOlderRevision() {
    long r1 = store.putModel(card("a"), RegistryStore.ANY_REVISION);
    long r2 = store.putModel(card("b"), RegistryStore.ANY_REVISION);
    long r3 = store.putModel(card("c"), RegistryStore.ANY_REVISION);
    List<StoreEvent> seen = new CopyOnWriteArrayList<>();
    try (StoreWatch ignored = store.watch(r2, recorder(seen))) {
      long r4 = store.putModel(card("d"), RegistryStore.ANY_REVISION);
      await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() >= 3);
      assertThat(seen).extracting(StoreEvent::revision).containsExactly(r2, r3, r4);
      assertThat(r1).isLessThan(r2);
    }
  }

  @Test
  void closedWatchStopsDelivering() throws InterruptedException {
    List<StoreEvent> seen = new CopyOnWriteArrayList<>();
    StoreWatch w = store.watch(store.snapshot().revision() + 1, recorder(seen));
    store.putModel(card("a"), RegistryStore.ANY_REVISION);
    await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 1);
    w.close();
    store.putModel(card("b"), RegistryStore.ANY_REVISION);
    Thread.sleep(300);
    assertThat(seen).hasSize(1);
  }

  @Test
  void snapshotRevisionCoversEveryEntry() {
    List<Long> revs = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      revs.add(store.putModel(card("m" + i), RegistryStore.ANY_REVISION));
      revs.add(store.putWorker(worker("w" + i, "m" + i), RegistryStore.ANY_REVISION));
    }
    Snapshot s = store.snapshot();
    assertThat(s.models()).hasSize(5);
    assertThat(s.workers()).hasSize(5);
    assertThat(s.revision()).isGreaterThanOrEqualTo(revs.get(revs.size() - 1));
    for (Versioned<ModelCard> m : s.models()) {
      assertThat(revs).contains(m.revision());
    }
  }

  @Test
  void apiKeysAreStoredWatchedAndConditional() {
    List<StoreEvent> seen = new CopyOnWriteArrayList<>();
    try (StoreWatch ignored = store.watch(store.snapshot().revision() + 1, recorder(seen))) {
      long r1 = store.putApiKey(apiKey("team-a", "m1"), RegistryStore.MUST_NOT_EXIST);
      assertThat(store.apiKey("team-a")).contains(new Versioned<>(apiKey("team-a", "m1"), r1));
      assertThatThrownBy(() -> store.putApiKey(apiKey("team-a"), RegistryStore.MUST_NOT_EXIST))
          .isInstanceOf(RevisionConflictException.class);
      long r2 = store.putApiKey(apiKey("team-a", "m1", "m2"), r1);
      assertThat(store.snapshot().apiKeys())
          .extracting(Versioned::value)
          .containsExactly(apiKey("team-a", "m1", "m2"));
      assertThatThrownBy(() -> store.deleteApiKey("team-a", r1))
          .isInstanceOf(RevisionConflictException.class);
      long r3 = store.deleteApiKey("team-a", r2);
      assertThatThrownBy(() -> store.deleteApiKey("team-a", RegistryStore.ANY_REVISION))
          .isInstanceOf(NotFoundException.class);
      await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() >= 3);
      assertThat(seen)
          .containsExactly(
              new StoreEvent.ApiKeyPut(apiKey("team-a", "m1"), r1),
              new StoreEvent.ApiKeyPut(apiKey("team-a", "m1", "m2"), r2),
              new StoreEvent.ApiKeyDeleted("team-a", apiKey("team-a", "m1", "m2"), r3));
    }
  }

  @Test
  void healthIsUp() {
    StoreHealth h = store.health();
    assertThat(h.up()).isTrue();
    assertThat(h.details()).containsKey("store");
  }

  static StoreWatcher recorder(List<StoreEvent> sink) {
    AtomicLong last = new AtomicLong();
    return new StoreWatcher() {
      @Override
      public void onEvents(List<StoreEvent> events) {
        for (StoreEvent e : events) {
          if (e.revision() <= last.get()) {
            throw new AssertionError("out of order: " + e + " after " + last.get());
          }
          last.set(e.revision());
          sink.add(e);
        }
      }

      @Override
      public void onCompacted(long compactRevision) {
        throw new AssertionError("unexpected compaction at " + compactRevision);
      }

      @Override
      public void onError(Throwable error) {
        throw new AssertionError("unexpected watch error", error);
      }
    };
  }
}
