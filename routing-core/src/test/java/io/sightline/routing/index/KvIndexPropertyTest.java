package io.sightline.routing.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Applies random event sequences — stores with and without parents (known and unknown), duplicate
 * and reused engine hashes, split and rejected block sizes, removals of unknown hashes, clears,
 * replayed sequence numbers, predictions with TTLs and clock jumps, interleaved workers, ranks and
 * tiers — to {@link KvIndex} and to a deliberately naive reference model (lists of paths), and
 * compares every query after every step.
 */
class KvIndexPropertyTest {
  private static final int B = 2;
  private static final String[] WORKERS = {"a", "b", "c"};

  // Thousands of indexes each log their first rejections; keep the test output readable.
  private static final java.util.logging.Logger QUIET =
      java.util.logging.Logger.getLogger(KvIndex.class.getName());

  static {
    QUIET.setLevel(java.util.logging.Level.SEVERE);
  }

  private static final StorageTier[] TIERS = {StorageTier.DEVICE, StorageTier.HOST};

  sealed interface Action permits Store, Remove, Clear, Predict, Tick {}

  record Store(
      int worker, int dp, int tier, long[] hashes, Long parent, int ebs, int[] tokens, int replay)
      implements Action {}

  record Remove(int worker, int dp, int tier, long[] hashes, int replay) implements Action {}

  record Clear(int worker, int dp) implements Action {}

  record Predict(int worker, int dp, int[] tokens, long ttl) implements Action {}

  record Tick(long millis) implements Action {}

  @Provide
  Arbitrary<List<Action>> actions() {
    Arbitrary<Integer> worker = Arbitraries.integers().between(0, WORKERS.length - 1);
    Arbitrary<Integer> dp = Arbitraries.integers().between(0, 1);
    Arbitrary<Integer> tier = Arbitraries.integers().between(0, TIERS.length - 1);
    Arbitrary<Long> hash = Arbitraries.longs().between(0, 11);
    Arbitrary<Integer> ebs = Arbitraries.of(2, 2, 2, 4, 3);
    Arbitrary<Integer> replay = Arbitraries.integers().between(0, 9);
    Arbitrary<Action> store =
        Combinators.combine(
                worker,
                dp,
                tier,
                hash.array(long[].class).ofMinSize(1).ofMaxSize(3),
                hash.injectNull(0.35),
                ebs,
                Arbitraries.longs(),
                replay)
            .as(
                (w, d, t, hs, p, e, seed, r) -> {
                  Random rnd = new Random(seed);
                  // about one store in eight is a token-less tier update
                  int[] tokens = new int[rnd.nextInt(8) == 0 ? 0 : hs.length * e];
                  for (int i = 0; i < tokens.length; i++) {
                    tokens[i] = rnd.nextInt(3);
                  }
                  return new Store(w, d, t, hs, p, e, tokens, r);
                });
    Arbitrary<Action> remove =
        Combinators.combine(
                worker, dp, tier, hash.array(long[].class).ofMinSize(1).ofMaxSize(3), replay)
            .as(Remove::new);
    Arbitrary<Action> clear = Combinators.combine(worker, dp).as(Clear::new);
    Arbitrary<Action> predict =
        Combinators.combine(
                worker,
                dp,
                Arbitraries.integers().between(0, 2).array(int[].class).ofMinSize(2).ofMaxSize(8),
                Arbitraries.of(1_000L, 5_000L))
            .as(Predict::new);
    Arbitrary<Action> tick = Arbitraries.longs().between(0, 3_000).map(Tick::new);
    return Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(10, store),
            net.jqwik.api.Tuple.of(4, remove),
            net.jqwik.api.Tuple.of(1, clear),
            net.jqwik.api.Tuple.of(2, predict),
            net.jqwik.api.Tuple.of(2, tick))
        .list()
        .ofMinSize(1)
        .ofMaxSize(40);
  }

  @Property(tries = 1500)
  void indexAgreesWithNaiveModel(
      @ForAll("actions") List<Action> actions,
      @ForAll("querySeeds") long querySeed,
      @ForAll boolean straddleSlot63) {
    AtomicLong clock = new AtomicLong(1_000_000_000L);
    StoredBlockConverter conv = StoredBlockConverter.textOnly(B);
    KvIndex index = new KvIndex(conv, IndexConfig.DEFAULTS, clock::get);
    if (straddleSlot63) {
      // 61 idle ranks first, so the test's 6 ranks get slots 61..66: both sides of the 64-slot
      // holder bitmask (slots 0..63 take the fast path, 64+ the per-entry path)
      for (int i = 0; i < 61; i++) {
        index.apply(new KvEvent.Cleared("idle-" + i, 0, -1));
      }
    }
    Reference ref = new Reference(conv);
    Map<String, Long> seq = new HashMap<>();
    Random rnd = new Random(querySeed);
    for (Action a : actions) {
      switch (a) {
        case Store s -> {
          long sq = nextSeq(seq, s.worker, s.dp, s.replay);
          KvEvent.Stored ev =
              new KvEvent.Stored(
                  WORKERS[s.worker],
                  s.dp,
                  sq,
                  TIERS[s.tier],
                  s.hashes,
                  s.parent,
                  s.tokens,
                  s.ebs,
                  null,
                  null,
                  null);
          assertThat(index.apply(ev)).as("%s", ev).isEqualTo(ref.apply(ev));
        }
        case Remove r -> {
          long sq = nextSeq(seq, r.worker, r.dp, r.replay);
          KvEvent.Removed ev =
              new KvEvent.Removed(WORKERS[r.worker], r.dp, sq, TIERS[r.tier], r.hashes);
          assertThat(index.apply(ev)).isEqualTo(ref.apply(ev));
        }
        case Clear c -> {
          long sq = nextSeq(seq, c.worker, c.dp, 9);
          KvEvent.Cleared ev = new KvEvent.Cleared(WORKERS[c.worker], c.dp, sq);
          assertThat(index.apply(ev)).isEqualTo(ref.apply(ev));
        }
        case Predict p -> {
          long[] local = conv.hasher(null, null).localHashes(p.tokens);
          WorkerKey w = new WorkerKey(WORKERS[p.worker], p.dp);
          index.predict(w, local, p.ttl);
          ref.predict(w, local, nowMs(clock), p.ttl);
        }
        case Tick t -> clock.addAndGet(t.millis * 1_000_000L);
      }
      compareQueries(index, ref, conv, rnd, nowMs(clock));
    }
    // nothing leaks: clearing every rank and letting predictions expire empties the tree
    for (String w : WORKERS) {
      for (int d = 0; d < 2; d++) {
        index.apply(new KvEvent.Cleared(w, d, -1));
      }
    }
    clock.addAndGet(10_000_000_000L);
    index.sweepExpired();
    assertThat(index.stats().nodes()).isZero();
    assertThat(index.stats().entries()).isZero();
  }

  @Provide
  Arbitrary<Long> querySeeds() {
    return Arbitraries.longs();
  }

  private static long nowMs(AtomicLong clock) {
    return (clock.get() - 1_000_000_000L) / 1_000_000L;
  }

  private static long nextSeq(Map<String, Long> seq, int worker, int dp, int replay) {
    String k = worker + "/" + dp;
    long cur = seq.getOrDefault(k, 0L);
    if (replay == 0 && cur > 1) {
      return cur - 1; // a replayed (already applied or skipped) sequence number
    }
    seq.put(k, cur + 1);
    return cur + 1;
  }

  private static void compareQueries(
      KvIndex index, Reference ref, StoredBlockConverter conv, Random rnd, long nowMs) {
    Set<List<Long>> queries = new LinkedHashSet<>();
    for (int i = 0; i < 4; i++) {
      int[] t = new int[B * (1 + rnd.nextInt(6))];
      for (int j = 0; j < t.length; j++) {
        t[j] = rnd.nextInt(3);
      }
      queries.add(toList(conv.hasher(null, null).localHashes(t)));
    }
    queries.addAll(ref.allPaths());
    for (List<Long> q : queries) {
      long[] arr = q.stream().mapToLong(Long::longValue).toArray();
      OverlapScores got = index.query(arr);
      Map<WorkerKey, WorkerOverlap> want = ref.query(arr, nowMs);
      assertThat(got.overlaps().keySet()).as("workers for %s", q).isEqualTo(want.keySet());
      for (var e : want.entrySet()) {
        WorkerOverlap g = got.overlaps().get(e.getKey());
        WorkerOverlap w = e.getValue();
        assertThat(g.matchedBlocks()).as("depth %s %s", e.getKey(), q).isEqualTo(w.matchedBlocks());
        assertThat(g.deviceBlocks()).isEqualTo(w.deviceBlocks());
        assertThat(g.predictedBlocks()).isEqualTo(w.predictedBlocks());
        assertThat(g.hostBlocks()).isEqualTo(w.hostBlocks());
        assertThat(g.weightedBlocks()).isCloseTo(w.weightedBlocks(), within());
      }
    }
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }

  private static List<Long> toList(long[] a) {
    List<Long> l = new ArrayList<>(a.length);
    for (long x : a) {
      l.add(x);
    }
    return l;
  }

  /** Naive model: per (worker rank, tier) engine hash → full path of local hashes from the root. */
  static final class Reference {
    record Entry(List<Long> path, int span, int count) {}

    private final StoredBlockConverter conv;
    private final Map<WorkerKey, Map<StorageTier, Map<Long, Entry>>> entries = new HashMap<>();
    private final Map<WorkerKey, Map<List<Long>, Long>> predictions = new HashMap<>();
    private final Map<WorkerKey, Long> lastSeq = new HashMap<>();

    Reference(StoredBlockConverter conv) {
      this.conv = conv;
    }

    ApplyOutcome apply(KvEvent ev) {
      WorkerKey w = new WorkerKey(ev.workerId(), ev.dpRank());
      long last = lastSeq.getOrDefault(w, -1L);
      if (ev.sequence() >= 0 && last >= 0 && ev.sequence() <= last) {
        return ApplyOutcome.DUPLICATE;
      }
      if (ev.sequence() >= 0) {
        lastSeq.put(w, ev.sequence());
      }
      Map<StorageTier, Map<Long, Entry>> tiers =
          entries.computeIfAbsent(w, k -> new EnumMap<>(StorageTier.class));
      switch (ev) {
        case KvEvent.Stored s when s.tokenIds().length == 0 -> {
          Map<Long, Entry> own = tiers.computeIfAbsent(s.tier(), k -> new HashMap<>());
          for (long h : s.blockHashes()) {
            Entry src = own.get(h);
            for (StorageTier t : StorageTier.values()) {
              if (src == null && t != s.tier()) {
                src = tiers.getOrDefault(t, Map.of()).get(h);
              }
            }
            if (src == null) {
              continue;
            }
            Entry prev = own.get(h);
            if (prev != null && prev.path.equals(src.path) && prev.span == src.span) {
              own.put(h, new Entry(src.path, src.span, prev.count + 1));
            } else {
              own.put(h, new Entry(src.path, src.span, 1));
            }
          }
        }
        case KvEvent.Stored s -> {
          var r = conv.convert(s);
          if (r instanceof StoredBlockConverter.Rejected) {
            return ApplyOutcome.REJECTED;
          }
          var c = (StoredBlockConverter.Converted) r;
          List<Long> path = new ArrayList<>();
          if (s.parentHash() != null) {
            Entry p = tiers.getOrDefault(s.tier(), Map.of()).get(s.parentHash());
            for (StorageTier t : StorageTier.values()) {
              if (p == null && t != s.tier()) {
                p = tiers.getOrDefault(t, Map.of()).get(s.parentHash());
              }
            }
            if (p == null) {
              return ApplyOutcome.UNKNOWN_PARENT;
            }
            path.addAll(p.path);
          }
          Map<Long, Entry> map = tiers.computeIfAbsent(s.tier(), k -> new HashMap<>());
          for (int j = 0; j < s.blockHashes().length; j++) {
            for (int k = 0; k < c.span(); k++) {
              path.add(c.localHashes()[j * c.span() + k]);
            }
            List<Long> copy = List.copyOf(path);
            Entry prev = map.get(s.blockHashes()[j]);
            if (prev != null && prev.path.equals(copy) && prev.span == c.span()) {
              map.put(s.blockHashes()[j], new Entry(copy, c.span(), prev.count + 1));
            } else {
              map.put(s.blockHashes()[j], new Entry(copy, c.span(), 1));
            }
          }
        }
        case KvEvent.Removed r -> {
          Map<Long, Entry> map = tiers.computeIfAbsent(r.tier(), k -> new HashMap<>());
          for (long h : r.blockHashes()) {
            Entry e = map.get(h);
            if (e == null) {
              continue;
            }
            if (e.count > 1) {
              map.put(h, new Entry(e.path, e.span, e.count - 1));
            } else {
              map.remove(h);
            }
          }
        }
        case KvEvent.Cleared c -> {
          tiers.clear();
          predictions.remove(w);
        }
      }
      return ApplyOutcome.APPLIED;
    }

    void predict(WorkerKey w, long[] local, long nowMs, long ttl) {
      Map<List<Long>, Long> p = predictions.computeIfAbsent(w, k -> new HashMap<>());
      List<Long> path = new ArrayList<>();
      for (long h : local) {
        path.add(h);
        p.put(List.copyOf(path), nowMs + ttl);
      }
    }

    Set<List<Long>> allPaths() {
      Set<List<Long>> out = new LinkedHashSet<>();
      for (var tiers : entries.values()) {
        for (var map : tiers.values()) {
          for (Entry e : map.values()) {
            out.add(e.path);
          }
        }
      }
      for (var p : predictions.values()) {
        out.addAll(p.keySet());
      }
      return out;
    }

    Map<WorkerKey, WorkerOverlap> query(long[] q, long nowMs) {
      Set<WorkerKey> ws = new LinkedHashSet<>(entries.keySet());
      ws.addAll(predictions.keySet());
      Map<WorkerKey, WorkerOverlap> out = new HashMap<>();
      for (WorkerKey w : ws) {
        int depth = 0;
        int dev = 0;
        int pred = 0;
        int host = 0;
        double weighted = 0;
        while (depth < q.length) {
          List<Long> prefix = toList(java.util.Arrays.copyOf(q, depth + 1));
          boolean d = holds(w, StorageTier.DEVICE, prefix);
          Long exp = predictions.getOrDefault(w, Map.of()).get(prefix);
          boolean p = exp != null && exp > nowMs;
          boolean h = holds(w, StorageTier.HOST, prefix);
          if (d) {
            dev++;
            weighted += 1.0;
          } else if (p) {
            pred++;
            weighted += 1.0;
          } else if (h) {
            host++;
            weighted += 0.75;
          } else {
            break;
          }
          depth++;
        }
        if (depth > 0) {
          out.put(w, new WorkerOverlap(w, depth, dev, pred, host, 0, 0, weighted));
        }
      }
      return out;
    }

    private boolean holds(WorkerKey w, StorageTier tier, List<Long> prefix) {
      Map<Long, Entry> map = entries.getOrDefault(w, Map.of()).getOrDefault(tier, Map.of());
      for (Entry e : map.values()) {
        int n = e.path.size();
        if (n >= prefix.size()
            && n - e.span < prefix.size()
            && e.path.subList(0, prefix.size()).equals(prefix)) {
          return true;
        }
      }
      return false;
    }
  }
}
