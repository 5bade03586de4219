package io.sightline.bench.index;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import io.sightline.routing.hashing.BlockHasher;
import io.sightline.routing.index.KvIndex;
import io.sightline.routing.index.StoredBlockConverter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Builds a {@link KvIndex} of about {@value #TARGET_ENTRIES} (block, worker) entries over {@value
 * #WORKERS} workers with Mooncake prefix sharing.
 *
 * <p>Each Mooncake block (512 tokens) becomes {@value #SUB} Sightline blocks of {@value
 * #BLOCK_SIZE} tokens whose token ids are derived from the Mooncake block id, so equal ids give
 * equal local hashes and the trace's prefix sharing carries over. Requests are replayed in trace
 * order, each to a random worker (seeded); like vLLM, the worker emits one {@code BlockStored} for
 * the blocks it did not hold yet, chained to the last block it held. Engine hashes are the block
 * positions' ids (same content → same engine hash, as an engine with a fixed seed). The trace is
 * cycled with a different salt per pass if it runs out.
 */
public final class IndexFixture {
  public static final int WORKERS = 64;
  public static final int BLOCK_SIZE = 16;
  public static final int SUB = 512 / BLOCK_SIZE;
  public static final long TARGET_ENTRIES = 1_000_000;

  public final KvIndex index;
  public final List<int[]> trace;
  public final long events;

  private IndexFixture(KvIndex index, List<int[]> trace, long events) {
    this.index = index;
    this.trace = trace;
    this.events = events;
  }

  public static IndexFixture build() {
    return build(TARGET_ENTRIES);
  }

  public static IndexFixture build(long targetEntries) {
    List<int[]> trace = MooncakeTrace.load();
    KvIndex index = new KvIndex(StoredBlockConverter.textOnly(BLOCK_SIZE));
    SplittableRandom rnd = new SplittableRandom(42);
    List<Set<Long>> held = new ArrayList<>();
    for (int w = 0; w < WORKERS; w++) {
      held.add(new HashSet<>());
    }
    long entries = 0;
    long events = 0;
    int pass = 0;
    outer:
    while (true) {
      for (int[] ids : trace) {
        int w = rnd.nextInt(WORKERS);
        Set<Long> mine = held.get(w);
        int start = 0;
        while (start < ids.length && mine.contains(salted(ids[start], pass))) {
          start++;
        }
        if (start == ids.length) {
          continue;
        }
        Long parent = start == 0 ? null : engineHash(salted(ids[start - 1], pass), SUB - 1);
        KvEvent.Stored ev = storedEvent("w" + w, ids, start, ids.length, pass, parent);
        index.apply(ev);
        events++;
        for (int i = start; i < ids.length; i++) {
          mine.add(salted(ids[i], pass));
        }
        entries += (long) (ids.length - start) * SUB;
        if (entries >= targetEntries) {
          break outer;
        }
      }
      pass++;
    }
    return new IndexFixture(index, trace, events);
  }

  static long salted(int id, int pass) {
    return ((long) pass << 32) | (id & 0xFFFFFFFFL);
  }

  static long engineHash(long saltedId, int sub) {
    return saltedId * SUB + sub;
  }

  /** Tokens of Mooncake blocks {@code ids[from, to)} expanded to Sightline blocks. */
  public static int[] tokens(int[] ids, int from, int to, int pass) {
    int[] t = new int[(to - from) * SUB * BLOCK_SIZE];
    int k = 0;
    for (int i = from; i < to; i++) {
      long base = salted(ids[i], pass) * 512;
      for (int j = 0; j < 512; j++) {
        t[k++] = (int) (base + j) ^ (int) ((base + j) >>> 32);
      }
    }
    return t;
  }

  /** A stored event for Mooncake blocks {@code ids[from, to)} on {@code worker}. */
  public static KvEvent.Stored storedEvent(
      String worker, int[] ids, int from, int to, int pass, Long parent) {
    long[] hashes = new long[(to - from) * SUB];
    int k = 0;
    for (int i = from; i < to; i++) {
      for (int j = 0; j < SUB; j++) {
        hashes[k++] = engineHash(salted(ids[i], pass), j);
      }
    }
    return new KvEvent.Stored(
        worker,
        0,
        -1,
        StorageTier.DEVICE,
        hashes,
        parent,
        tokens(ids, from, to, pass),
        BLOCK_SIZE,
        null,
        null,
        null);
  }

  /** Local hashes of the first {@code blocks} Sightline blocks of a request (pass 0). */
  public static long[] localHashes(int[] ids, int blocks) {
    int mooncakeBlocks = (blocks + SUB - 1) / SUB;
    int[] t = tokens(ids, 0, Math.min(ids.length, mooncakeBlocks), 0);
    long[] all = BlockHasher.of(BLOCK_SIZE).localHashes(t);
    return java.util.Arrays.copyOf(all, Math.min(all.length, blocks));
  }

  /** Requests with at least {@code minMooncakeBlocks} blocks, in trace order. */
  public List<int[]> requestsWithAtLeast(int minMooncakeBlocks) {
    List<int[]> out = new ArrayList<>();
    for (int[] ids : trace) {
      if (ids.length >= minMooncakeBlocks) {
        out.add(ids);
      }
    }
    return out;
  }

  /** Summary used by the footprint report. */
  public Map<String, Object> describe() {
    Map<String, Object> m = new HashMap<>();
    m.put("events", events);
    m.put("stats", index.stats());
    return m;
  }
}
