package io.sightline.router.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.routing.index.WorkerKey;
import io.sightline.routing.selection.WorkerLoad;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One contract for the replicated router state, run over the in-memory hub and over real Redis.
 * Each test gets a fresh backend (a fresh key prefix for Redis) and plays several replicas.
 */
abstract class StateBackendContract {
  static final long TTL = 400;
  StateBackend backend;

  /** A fresh, isolated backend. */
  abstract StateBackend newBackend();

  @BeforeEach
  void open() {
    backend = newBackend();
  }

  @AfterEach
  void closeBackend() {
    backend.close();
  }

  static String id() {
    return "r-" + UUID.randomUUID().toString().substring(0, 8);
  }

  static final WorkerKey W1 = new WorkerKey("worker_1", 0);
  static final WorkerKey W2 = new WorkerKey("worker_2", 0);
  static final WorkerKey W2R1 = new WorkerKey("worker_2", 1);

  static WorkerLoad load(long prefill, long blocks, long requests) {
    return new WorkerLoad(prefill, blocks, requests);
  }

  @Test
  void replicasSeeEachOthersLoadButNotTheirOwn() {
    SharedLoad a = backend.load(id(), 5_000);
    SharedLoad b = backend.load(id(), 5_000);
    SharedLoad c = backend.load(id(), 5_000);
    a.sync(Map.of(W1, load(100, 10, 1)));
    b.sync(Map.of(W1, load(30, 3, 1), W2, load(40, 4, 2)));
    c.sync(Map.of(W2R1, load(7, 1, 1)));
    a.sync(Map.of(W1, load(100, 10, 1)));
    assertThat(a.others())
        .isEqualTo(Map.of(W1, load(30, 3, 1), W2, load(40, 4, 2), W2R1, load(7, 1, 1)));
    b.sync(Map.of(W1, load(30, 3, 1), W2, load(40, 4, 2)));
    assertThat(b.others()).isEqualTo(Map.of(W1, load(100, 10, 1), W2R1, load(7, 1, 1)));

    // b's requests end: its workers vanish from what a sees (fields removed, not left stale)
    b.sync(Map.of());
    a.sync(Map.of(W1, load(100, 10, 1)));
    assertThat(a.others()).isEqualTo(Map.of(W2R1, load(7, 1, 1)));
    a.close();
    b.close();
    c.close();
  }

  @Test
  void loadsOfSeveralReplicasOnOneWorkerAreSummed() {
    SharedLoad a = backend.load(id(), 5_000);
    SharedLoad b = backend.load(id(), 5_000);
    SharedLoad c = backend.load(id(), 5_000);
    b.sync(Map.of(W1, load(1, 2, 3)));
    c.sync(Map.of(W1, load(10, 20, 30)));
    a.sync(Map.of());
    assertThat(a.others()).isEqualTo(Map.of(W1, load(11, 22, 33)));
    a.close();
    b.close();
    c.close();
  }

  @Test
  void deadReplicasLoadDisappearsAfterTtl() throws Exception {
    SharedLoad a = backend.load(id(), TTL);
    SharedLoad dead = backend.load(id(), TTL);
    dead.sync(Map.of(W2, load(500, 50, 1))); // publishes, then "crashes": never syncs again
    a.sync(Map.of());
    assertThat(a.others()).containsEntry(W2, load(500, 50, 1));
    Thread.sleep(TTL + 300);
    a.sync(Map.of());
    assertThat(a.others()).doesNotContainKey(W2);
    a.close();
  }

  @Test
  void cleanCloseRemovesLoadImmediately() {
    SharedLoad a = backend.load(id(), 10_000);
    SharedLoad b = backend.load(id(), 10_000);
    b.sync(Map.of(W1, load(8, 1, 1)));
    a.sync(Map.of());
    assertThat(a.others()).containsKey(W1);
    b.close();
    a.sync(Map.of());
    assertThat(a.others()).isEmpty();
    a.close();
  }

  @Test
  void loadWireFormRoundTripsAndRejectsGarbage() {
    assertThat(SharedLoad.decode(SharedLoad.encode(load(5, 6, 7)))).isEqualTo(load(5, 6, 7));
    assertThat(SharedLoad.decode("1:2")).isNull();
    assertThat(SharedLoad.decode("a:b:c")).isNull();
    assertThat(SharedLoad.decode(null)).isNull();
    assertThat(WorkerKeys.decode(WorkerKeys.encode(W2R1))).isEqualTo(W2R1);
    assertThat(WorkerKeys.decode("no-rank")).isNull();
    assertThat(WorkerKeys.decode("w|-1")).isNull();
  }

  @Test
  void predictionsReachOtherReplicasButNotTheirAuthor() {
    String ra = id();
    String rb = id();
    PredictionStore a = backend.predictions(ra);
    PredictionStore b = backend.predictions(rb);
    long exp = System.currentTimeMillis() + 60_000;
    Prediction p1 = new Prediction(ra, "m", W1, new long[] {1L, -2L, Long.MIN_VALUE}, exp);
    Prediction p2 = new Prediction(ra, "m", W2R1, new long[] {7L}, exp);
    a.publish(p1);
    a.publish(p2);
    b.publish(new Prediction(rb, "m2", W2, new long[] {9L}, exp));

    assertThat(b.pollOthers()).containsExactly(p1, p2);
    assertThat(b.pollOthers()).as("each prediction is delivered once").isEmpty();
    assertThat(a.pollOthers()).extracting(Prediction::worker).containsExactly(W2);

    Prediction p3 = new Prediction(ra, "m", W1, new long[] {42L}, exp);
    a.publish(p3);
    assertThat(b.pollOthers()).containsExactly(p3);
  }

  @Test
  void lateReplicaLearnsEarlierPredictions() {
    String ra = id();
    PredictionStore a = backend.predictions(ra);
    Prediction p =
        new Prediction(ra, "m", W1, new long[] {5L, 6L}, System.currentTimeMillis() + 60_000);
    a.publish(p);
    PredictionStore late = backend.predictions(id());
    List<Prediction> seen = late.pollOthers();
    // the in-memory hub only delivers what is published after attaching; Redis replays the stream
    if (replaysHistory()) {
      assertThat(seen).containsExactly(p);
    } else {
      assertThat(seen).isEmpty();
    }
  }

  /** Whether a newly attached replica receives predictions published before it attached. */
  abstract boolean replaysHistory();

  @Test
  void newestSnapshotIsTheOneWithTheHighestSequence() {
    SnapshotStore store = backend.snapshots();
    assertThat(store.newest()).isEmpty();
    store.save(new IndexSnapshot("a", 120, 1000, new byte[] {1, 2, 3}));
    store.save(new IndexSnapshot("b", 300, 900, new byte[] {4, 5}));
    store.save(new IndexSnapshot("c", 200, 2000, new byte[] {6}));
    Optional<IndexSnapshot> newest = store.newest();
    assertThat(newest).isPresent();
    assertThat(newest.get().replicaId()).isEqualTo("b");
    assertThat(newest.get().streamSequence()).isEqualTo(300);
    assertThat(newest.get().createdAtMillis()).isEqualTo(900);
    assertThat(newest.get().data()).containsExactly(4, 5);

    // a replica's newer snapshot replaces its previous one
    store.save(new IndexSnapshot("a", 450, 3000, new byte[] {9, 9}));
    assertThat(store.newest().get().replicaId()).isEqualTo("a");
    assertThat(store.newest().get().data()).containsExactly(9, 9);
  }

  @Test
  void largeBinarySnapshotRoundTrips() {
    byte[] data = new byte[1 << 20];
    new java.util.Random(7).nextBytes(data);
    backend.snapshots().save(new IndexSnapshot("big", 1, 1, data));
    assertThat(backend.snapshots().newest().get().data()).isEqualTo(data);
  }
}
