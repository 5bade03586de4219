package io.sightline.routing.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import io.sightline.routing.hashing.BlockHasher;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class KvIndexTest {
  private static final int B = 4;
  private final AtomicLong clock = new AtomicLong();
  private final KvIndex index =
      new KvIndex(StoredBlockConverter.textOnly(B), IndexConfig.DEFAULTS, clock::get);
  private final BlockHasher hasher = BlockHasher.of(B);

  private static int[] tokens(int blocks, int salt) {
    int[] t = new int[blocks * B];
    for (int i = 0; i < t.length; i++) {
      t[i] = salt * 1000 + i;
    }
    return t;
  }

  private static KvEvent.Stored store(
      String w, StorageTier tier, long[] hashes, Long parent, int[] tokens) {
    return new KvEvent.Stored(w, 0, -1, tier, hashes, parent, tokens, B, null, null, null);
  }

  private static KvEvent.Stored store(String w, long[] hashes, Long parent, int[] tokens) {
    return store(w, StorageTier.DEVICE, hashes, parent, tokens);
  }

  private static WorkerKey wk(String w) {
    return new WorkerKey(w, 0);
  }

  @Test
  void consecutivePrefixPerWorker() {
    int[] t = tokens(4, 1);
    long[] local = hasher.localHashes(t);
    index.apply(store("a", new long[] {1, 2, 3, 4}, null, t));
    // b holds only the first two blocks, in two events chained by parent
    index.apply(store("b", new long[] {11}, null, java.util.Arrays.copyOfRange(t, 0, 4)));
    index.apply(store("b", new long[] {12}, 11L, java.util.Arrays.copyOfRange(t, 4, 8)));

    OverlapScores s = index.query(local);
    assertThat(s.of(wk("a")).matchedBlocks()).isEqualTo(4);
    assertThat(s.of(wk("b")).matchedBlocks()).isEqualTo(2);
    assertThat(s.of(wk("c")).matchedBlocks()).isZero();
    assertThat(s.maxMatchedBlocks()).isEqualTo(4);
    // a different first block matches nothing, even though later blocks are equal
    long[] other = local.clone();
    other[0] ^= 1;
    assertThat(index.query(other).overlaps()).isEmpty();
  }

  @Test
  void removalBreaksThePrefixAndPrunesNodes() {
    int[] t = tokens(3, 2);
    long[] local = hasher.localHashes(t);
    index.apply(store("a", new long[] {1, 2, 3}, null, t));
    index.apply(new KvEvent.Removed("a", 0, -1, StorageTier.DEVICE, new long[] {2}));
    assertThat(index.query(local).of(wk("a")).matchedBlocks()).isEqualTo(1);
    index.apply(new KvEvent.Removed("a", 0, -1, StorageTier.DEVICE, new long[] {1, 3, 99}));
    assertThat(index.query(local).overlaps()).isEmpty();
    IndexStats st = index.stats();
    assertThat(st.nodes()).isZero();
    assertThat(st.entries()).isZero();
    assertThat(st.unknownRemovals()).isEqualTo(1);
  }

  @Test
  void duplicateStoresAreReferenceCounted() {
    int[] t = tokens(1, 3);
    long[] local = hasher.localHashes(t);
    index.apply(store("a", new long[] {7}, null, t));
    index.apply(store("a", new long[] {7}, null, t));
    index.apply(new KvEvent.Removed("a", 0, -1, StorageTier.DEVICE, new long[] {7}));
    assertThat(index.query(local).of(wk("a")).matchedBlocks()).isEqualTo(1);
    index.apply(new KvEvent.Removed("a", 0, -1, StorageTier.DEVICE, new long[] {7}));
    assertThat(index.query(local).of(wk("a")).matchedBlocks()).isZero();
  }

  @Test
  void unknownParentIsDroppedAndCounted() {
    int[] t = tokens(1, 4);
    assertThat(index.apply(store("a", new long[] {5}, 404L, t)))
        .isEqualTo(ApplyOutcome.UNKNOWN_PARENT);
    assertThat(index.stats().unknownParents()).isEqualTo(1);
    assertThat(index.query(hasher.localHashes(t)).overlaps()).isEmpty();
  }

  @Test
  void tiersAreWeightedAndBestTierWinsPerBlock() {
    int[] t = tokens(4, 5);
    long[] local = hasher.localHashes(t);
    index.apply(store("a", StorageTier.HOST, new long[] {1, 2, 3, 4}, null, t));
    index.apply(
        store("a", StorageTier.DEVICE, new long[] {1, 2}, null, java.util.Arrays.copyOf(t, 8)));
    WorkerOverlap o = index.query(local).of(wk("a"));
    assertThat(o.matchedBlocks()).isEqualTo(4);
    assertThat(o.deviceBlocks()).isEqualTo(2);
    assertThat(o.hostBlocks()).isEqualTo(2);
    assertThat(o.weightedBlocks()).isEqualTo(2 + 2 * 0.75);
    // removing from the device tier leaves the host copy
    index.apply(new KvEvent.Removed("a", 0, -1, StorageTier.DEVICE, new long[] {1, 2}));
    o = index.query(local).of(wk("a"));
    assertThat(o.hostBlocks()).isEqualTo(4);
    assertThat(o.weightedBlocks()).isEqualTo(3.0);
  }

  @Test
  void clearedWipesOneRankOnly() {
    int[] t = tokens(2, 6);
    long[] local = hasher.localHashes(t);
    index.apply(store("a", new long[] {1, 2}, null, t));
    index.apply(
        new KvEvent.Stored(
            "a", 1, -1, StorageTier.DISK, new long[] {1, 2}, null, t, B, null, null, null));
    index.predict(wk("a"), local, 10_000);
    index.apply(new KvEvent.Cleared("a", 0, -1));
    OverlapScores s = index.query(local);
    assertThat(s.of(wk("a")).matchedBlocks()).isZero();
    assertThat(s.of(new WorkerKey("a", 1)).diskBlocks()).isEqualTo(2);
    assertThat(index.predictedEntries()).isZero();
  }

  @Test
  void replayedSequenceNumbersAreSkipped() {
    int[] t = tokens(1, 7);
    var e1 =
        new KvEvent.Stored(
            "a", 0, 5, StorageTier.DEVICE, new long[] {1}, null, t, B, null, null, null);
    assertThat(index.apply(e1)).isEqualTo(ApplyOutcome.APPLIED);
    assertThat(index.apply(e1)).isEqualTo(ApplyOutcome.DUPLICATE);
    assertThat(index.apply(new KvEvent.Removed("a", 0, 6, StorageTier.DEVICE, new long[] {1})))
        .isEqualTo(ApplyOutcome.APPLIED);
    assertThat(index.query(hasher.localHashes(t)).overlaps()).isEmpty();
    assertThat(index.stats().duplicates()).isEqualTo(1);
  }

  @Test
  void splitEngineBlocksAreRemovedAsAWhole() {
    int[] t = tokens(4, 8); // two engine blocks of 8 tokens = four local blocks
    long[] local = hasher.localHashes(t);
    var ev =
        new KvEvent.Stored(
            "a", 0, -1, StorageTier.DEVICE, new long[] {1, 2}, null, t, 8, null, null, null);
    index.apply(ev);
    assertThat(index.query(local).of(wk("a")).matchedBlocks()).isEqualTo(4);
    index.apply(new KvEvent.Removed("a", 0, -1, StorageTier.DEVICE, new long[] {2}));
    assertThat(index.query(local).of(wk("a")).matchedBlocks()).isEqualTo(2);
    index.apply(new KvEvent.Removed("a", 0, -1, StorageTier.DEVICE, new long[] {1}));
    assertThat(index.stats().nodes()).isZero();
  }

  @Test
  void rejectedEventsAreCounted() {
    var ev =
        new KvEvent.Stored(
            "a",
            0,
            -1,
            StorageTier.DEVICE,
            new long[] {1},
            null,
            new int[] {1, 2, 3, 4, 5, 6},
            6,
            null,
            null,
            null);
    assertThat(index.apply(ev)).isEqualTo(ApplyOutcome.REJECTED);
    assertThat(index.stats().rejected()).containsEntry(StoredBlockConverter.REJECT_BLOCK_SIZE, 1L);
  }

  @Test
  void predictionsExpireAndMergeWithEventsByMax() {
    int[] t = tokens(4, 9);
    long[] local = hasher.localHashes(t);
    index.apply(
        store("a", StorageTier.HOST, new long[] {1, 2}, null, java.util.Arrays.copyOf(t, 8)));
    index.predict(wk("a"), local, 2_000);
    WorkerOverlap o = index.query(local).of(wk("a"));
    assertThat(o.matchedBlocks()).isEqualTo(4);
    assertThat(o.predictedBlocks()).isEqualTo(4); // prediction (1.0) beats host (0.75)
    assertThat(o.hostBlocks()).isZero();
    clock.addAndGet(2_001_000_000L);
    o = index.query(local).of(wk("a"));
    assertThat(o.matchedBlocks()).isEqualTo(2);
    assertThat(o.hostBlocks()).isEqualTo(2);
    index.sweepExpired();
    assertThat(index.predictedEntries()).isZero();
    assertThat(index.stats().nodes()).isEqualTo(2);
  }

  @Test
  void predictionBudgetEvictsLeastRecentlyPredicted() {
    KvIndex small =
        new KvIndex(
            StoredBlockConverter.textOnly(B),
            IndexConfig.DEFAULTS.withPredictedEntryBudget(6),
            clock::get);
    long[] first = hasher.localHashes(tokens(4, 10));
    long[] second = hasher.localHashes(tokens(4, 11));
    small.predict(wk("a"), first, 120_000);
    small.predict(wk("b"), second, 120_000);
    assertThat(small.predictedEntries()).isEqualTo(6);
    assertThat(small.stats().predictionEvictions()).isEqualTo(2);
    // the two oldest entries (blocks 0 and 1 of "first") went, so "a" matches nothing now
    assertThat(small.query(first).of(wk("a")).matchedBlocks()).isZero();
    assertThat(small.query(second).of(wk("b")).matchedBlocks()).isEqualTo(4);
  }

  @Test
  void concurrentWritersAndReadersConvergeToTheSequentialResult() throws Exception {
    int workers = 8;
    int rounds = 300;
    ExecutorService pool = Executors.newFixedThreadPool(workers + 2);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> fs = new ArrayList<>();
    // shared prefix: every worker stores the same first two blocks, then its own tail
    int[] shared = tokens(2, 20);
    for (int w = 0; w < workers; w++) {
      String id = "w" + w;
      int salt = 100 + w;
      fs.add(
          pool.submit(
              () -> {
                start.await();
                for (int r = 0; r < rounds; r++) {
                  index.apply(store(id, new long[] {1, 2}, null, shared));
                  index.apply(store(id, new long[] {3}, 2L, tokens(1, salt + r * 16)));
                  if (r < rounds - 1) {
                    index.apply(
                        new KvEvent.Removed(id, 0, -1, StorageTier.DEVICE, new long[] {3, 1, 2}));
                  }
                }
                return null;
              }));
    }
    long[] sharedLocal = hasher.localHashes(shared);
    for (int q = 0; q < 2; q++) {
      fs.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < 2000; i++) {
                  OverlapScores s = index.query(sharedLocal);
                  for (WorkerOverlap o : s.overlaps().values()) {
                    assertThat(o.matchedBlocks()).isBetween(1, 2);
                  }
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> f : fs) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    OverlapScores s = index.query(sharedLocal);
    assertThat(s.overlaps()).hasSize(workers);
    for (int w = 0; w < workers; w++) {
      long[] full = new long[3];
      full[0] = sharedLocal[0];
      full[1] = sharedLocal[1];
      full[2] = hasher.localHashes(tokens(1, 100 + w + (rounds - 1) * 16))[0];
      assertThat(index.query(full).of(wk("w" + w)).matchedBlocks()).isEqualTo(3);
    }
    // 2 shared nodes + one tail node per worker; nothing leaked from the churn
    assertThat(index.stats().nodes()).isEqualTo(2 + workers);
    assertThat(index.stats().entries()).isEqualTo(3L * workers);
  }

  @Test
  void concurrentPredictionsEventsAndQueriesLeaveNoGarbage() throws Exception {
    KvIndex idx =
        new KvIndex(
            StoredBlockConverter.textOnly(B),
            IndexConfig.DEFAULTS.withPredictedEntryBudget(64),
            System::nanoTime);
    int[] shared = tokens(4, 30);
    long[] sharedLocal = hasher.localHashes(shared);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> fs = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      String id = "e" + w;
      fs.add(
          pool.submit(
              () -> {
                start.await();
                for (int r = 0; r < 500; r++) {
                  idx.apply(store(id, new long[] {1, 2, 3, 4}, null, shared));
                  idx.apply(new KvEvent.Removed(id, 0, -1, StorageTier.DEVICE, new long[] {4, 3}));
                  idx.apply(new KvEvent.Cleared(id, 0, -1));
                }
                return null;
              }));
    }
    fs.add(
        pool.submit(
            () -> {
              start.await();
              for (int r = 0; r < 500; r++) {
                idx.predict(wk("p" + (r % 5)), sharedLocal, 1 + (r % 3));
                idx.predict(wk("q"), hasher.localHashes(tokens(3, 40 + r)), 60_000);
                if (r % 50 == 0) {
                  idx.sweepExpired();
                }
              }
              return null;
            }));
    fs.add(
        pool.submit(
            () -> {
              start.await();
              for (int r = 0; r < 3000; r++) {
                for (WorkerOverlap o : idx.query(sharedLocal).overlaps().values()) {
                  assertThat(o.matchedBlocks()).isBetween(1, 4);
                  assertThat(o.deviceBlocks() + o.predictedBlocks()).isEqualTo(o.matchedBlocks());
                }
              }
              return null;
            }));
    start.countDown();
    for (Future<?> f : fs) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(idx.predictedEntries()).isLessThanOrEqualTo(64);
    for (String w : List.of("e0", "e1", "p0", "p1", "p2", "p3", "p4", "q")) {
      idx.apply(new KvEvent.Cleared(w, 0, -1));
    }
    assertThat(idx.predictedEntries()).isZero();
    assertThat(idx.stats().nodes()).isZero();
    assertThat(idx.stats().entries()).isZero();
  }

  @Test
  void deepMatchOfOneOfManyWorkersOnBothSidesOfTheBitmaskFastPath() {
    int[] t = tokens(40, 50);
    long[] local = hasher.localHashes(t);
    for (int w = 0; w < 70; w++) { // slots 0..69: 63 fast, 7 slow
      index.apply(store("m" + w, new long[] {1, 2}, null, java.util.Arrays.copyOf(t, 2 * B)));
    }
    long[] deep = new long[40];
    for (int i = 0; i < 40; i++) {
      deep[i] = 100 + i;
    }
    for (String w : List.of("m5", "m62", "m63", "m69")) {
      index.apply(
          store(
              w,
              java.util.Arrays.copyOfRange(deep, 2, 40),
              2L,
              java.util.Arrays.copyOfRange(t, 2 * B, 40 * B)));
    }
    OverlapScores s = index.query(local);
    assertThat(s.overlaps()).hasSize(70);
    for (int w = 0; w < 70; w++) {
      int expected = Set.of(5, 62, 63, 69).contains(w) ? 40 : 2;
      assertThat(s.of(wk("m" + w)).matchedBlocks()).as("m%d", w).isEqualTo(expected);
      assertThat(s.of(wk("m" + w)).deviceBlocks()).isEqualTo(expected);
    }
  }

  @Test
  void onlyASlowSlotContinuesAfterEveryFastSlotDropsOut() {
    int[] t = tokens(10, 51);
    long[] local = hasher.localHashes(t);
    for (int w = 0; w < 64; w++) {
      index.apply(store("s" + w, new long[] {1, 2}, null, java.util.Arrays.copyOf(t, 2 * B)));
    }
    index.apply(
        store(
            "s63",
            new long[] {3, 4, 5, 6, 7, 8, 9, 10},
            2L,
            java.util.Arrays.copyOfRange(t, 2 * B, 10 * B)));
    OverlapScores s = index.query(local);
    assertThat(s.of(wk("s63")).matchedBlocks()).isEqualTo(10);
    assertThat(s.of(wk("s0")).matchedBlocks()).isEqualTo(2);
  }

  @Test
  void tokenlessStoreIsATierUpdateOfKnownBlocks() {
    int[] t = tokens(3, 52);
    long[] local = hasher.localHashes(t);
    index.apply(store("a", new long[] {1, 2, 3}, null, t));
    // offload of blocks 1 and 2 (and an unknown hash) to host memory, then GPU eviction of both
    index.apply(store("a", StorageTier.HOST, new long[] {1, 2, 77}, null, new int[0]));
    index.apply(new KvEvent.Removed("a", 0, -1, StorageTier.DEVICE, new long[] {1, 2}));
    WorkerOverlap o = index.query(local).of(wk("a"));
    assertThat(o.matchedBlocks()).isEqualTo(3);
    assertThat(o.hostBlocks()).isEqualTo(2);
    assertThat(o.deviceBlocks()).isEqualTo(1);
    assertThat(index.stats().rejected()).containsEntry(KvIndex.REJECT_TIER_UPDATE_UNKNOWN, 1L);
  }
}
