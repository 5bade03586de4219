package io.sightline.router.state;

import static org.assertj.core.api.Assertions.assertThat;

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

  @Test
  void ownBookingsAreVisibleAtOnceWithoutSync() {
    SharedLoad a = backend.load(id(), TTL, 60_000);
    a.book("req-1", W1, 10);
    a.book("req-2", W1, 5);
    a.book("req-3", W2R1, 7);
    assertThat(a.totals())
        .containsEntry(W1, new WorkerLoad(2, 15))
        .containsEntry(W2R1, new WorkerLoad(1, 7))
        .doesNotContainKey(W2);
    assertThat(a.release("req-1")).isEqualTo(W1);
    assertThat(a.release("req-1")).as("release is idempotent").isNull();
    assertThat(a.release("never-booked")).isNull();
    assertThat(a.totals()).containsEntry(W1, new WorkerLoad(1, 5));
    a.close();
  }

  @Test
  void replicasSeeEachOthersLoadAfterSync() {
    SharedLoad a = backend.load(id(), 5_000, 60_000);
    SharedLoad b = backend.load(id(), 5_000, 60_000);
    a.book("a-1", W1, 10);
    b.book("b-1", W1, 3);
    b.book("b-2", W2, 4);
    a.sync();
    b.sync();
    a.sync(); // a fetches b's published totals
    assertThat(a.totals())
        .containsEntry(W1, new WorkerLoad(2, 13))
        .containsEntry(W2, new WorkerLoad(1, 4));
    assertThat(b.totals()).containsEntry(W1, new WorkerLoad(2, 13));
    assertThat(a.local()).isEqualTo(Map.of(W1, new WorkerLoad(1, 10)));

    b.release("b-1");
    b.release("b-2");
    b.sync();
    a.sync();
    assertThat(a.totals()).isEqualTo(Map.of(W1, new WorkerLoad(1, 10)));
    a.close();
    b.close();
  }

  @Test
  void deadReplicasLoadDisappearsAfterTtl() throws Exception {
    SharedLoad a = backend.load(id(), TTL, 60_000);
    SharedLoad dead = backend.load(id(), TTL, 60_000);
    dead.book("d-1", W2, 50);
    dead.sync(); // publishes, then "crashes": never syncs or closes again
    a.sync();
    assertThat(a.totals()).containsEntry(W2, new WorkerLoad(1, 50));
    Thread.sleep(TTL + 300);
    a.sync();
    assertThat(a.totals()).doesNotContainKey(W2);
    a.close();
  }

  @Test
  void cleanCloseRemovesLoadImmediately() {
    SharedLoad a = backend.load(id(), 10_000, 60_000);
    SharedLoad b = backend.load(id(), 10_000, 60_000);
    b.book("b-1", W1, 8);
    b.sync();
    a.sync();
    assertThat(a.totals()).containsKey(W1);
    b.close();
    a.sync();
    assertThat(a.totals()).doesNotContainKey(W1);
    a.close();
  }

  @Test
  void bookingsNeverReleasedAgeOut() throws Exception {
    SharedLoad a = backend.load(id(), 5_000, 100);
    a.book("leaked", W1, 9);
    Thread.sleep(200);
    a.book("fresh", W2, 1);
    a.sync();
    assertThat(a.totals()).doesNotContainKey(W1).containsEntry(W2, new WorkerLoad(1, 1));
    a.close();
  }

  @Test
  void predictionsReachOtherReplicasButNotTheirAuthor() {
    String ra = id();
    String rb = id();
    PredictionStore a = backend.predictions(ra);
    PredictionStore b = backend.predictions(rb);
    long exp = System.currentTimeMillis() + 60_000;
    Prediction p1 = new Prediction(ra, W1, new long[] {1L, -2L, Long.MIN_VALUE}, exp);
    Prediction p2 = new Prediction(ra, W2R1, new long[] {7L}, exp);
    a.publish(p1);
    a.publish(p2);
    b.publish(new Prediction(rb, W2, new long[] {9L}, exp));

    assertThat(b.pollOthers()).containsExactly(p1, p2);
    assertThat(b.pollOthers()).as("each prediction is delivered once").isEmpty();
    assertThat(a.pollOthers()).extracting(Prediction::worker).containsExactly(W2);

    Prediction p3 = new Prediction(ra, W1, new long[] {42L}, exp);
    a.publish(p3);
    assertThat(b.pollOthers()).containsExactly(p3);
  }

  @Test
  void lateReplicaLearnsEarlierPredictions() {
    String ra = id();
    PredictionStore a = backend.predictions(ra);
    Prediction p = new Prediction(ra, W1, new long[] {5L, 6L}, System.currentTimeMillis() + 60_000);
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
