package io.sightline.router.model;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import io.sightline.routing.index.WorkerKey;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The live blocks of one model's workers as a compacted event log: per (worker, rank, tier), engine
 * block hash → the block's parent, tokens and multimodal keys, with a reference count. Applied
 * events are recorded here after the index accepted them; a snapshot is this journal written as
 * single-block {@code Stored} events in parent-before-child order, which a fresh replica applies to
 * an empty index to get the same contents (Dynamo's {@code dump_events()}, dynamo.md §3 "Extras").
 * Replaying events rather than serialising the radix tree keeps snapshots independent of the
 * index's internal layout and lets a replica with a changed block size still use them: the index
 * recomputes local hashes from the tokens.
 *
 * <p>Cost: one small record per cached engine block (its tokens, ~4 bytes per token), which is why
 * journalling can be turned off where warm start is not wanted. Per-worker maps are guarded by the
 * worker's entry, mirroring the index's per-worker ordering.
 */
public final class EventJournal {
  private static final long NO_PARENT = 0L;

  record Block(
      boolean hasParent,
      long parent,
      int[] tokens,
      int blockSize,
      long[] mm,
      String lora,
      String salt,
      int count) {
    Block withCount(int c) {
      return new Block(hasParent, parent, tokens, blockSize, mm, lora, salt, c);
    }
  }

  private static final class WorkerBlocks {
    final EnumMap<StorageTier, LinkedHashMap<Long, Block>> tiers = new EnumMap<>(StorageTier.class);

    LinkedHashMap<Long, Block> tier(StorageTier t) {
      return tiers.computeIfAbsent(t, k -> new LinkedHashMap<>());
    }
  }

  private final ConcurrentHashMap<WorkerKey, WorkerBlocks> workers = new ConcurrentHashMap<>();

  /** Records an event the index applied. */
  public void record(KvEvent event) {
    WorkerKey key = new WorkerKey(event.workerId(), event.dpRank());
    switch (event) {
      case KvEvent.Cleared c -> workers.remove(key);
      case KvEvent.Stored s -> {
        WorkerBlocks wb = workers.computeIfAbsent(key, k -> new WorkerBlocks());
        synchronized (wb) {
          LinkedHashMap<Long, Block> map = wb.tier(s.tier());
          long[] hashes = s.blockHashes();
          int bs = s.blockSize();
          int[] tokens = s.tokenIds();
          for (int j = 0; j < hashes.length; j++) {
            boolean hasParent = j > 0 || s.parentHash() != null;
            long parent =
                j > 0 ? hashes[j - 1] : (s.parentHash() == null ? NO_PARENT : s.parentHash());
            int[] blockTokens = java.util.Arrays.copyOfRange(tokens, j * bs, (j + 1) * bs);
            long[] mm = s.mmHashesOfBlock(j);
            Block fresh =
                new Block(hasParent, parent, blockTokens, bs, mm, s.loraName(), s.cacheSalt(), 1);
            Block prev = map.get(hashes[j]);
            if (prev != null
                && prev.hasParent == hasParent
                && prev.parent == parent
                && java.util.Arrays.equals(prev.tokens, blockTokens)) {
              map.put(hashes[j], prev.withCount(prev.count + 1));
            } else {
              map.put(hashes[j], fresh);
            }
          }
        }
      }
      case KvEvent.Removed r -> {
        WorkerBlocks wb = workers.get(key);
        if (wb == null) {
          return;
        }
        synchronized (wb) {
          LinkedHashMap<Long, Block> map = wb.tiers.get(r.tier());
          if (map == null) {
            return;
          }
          for (long h : r.blockHashes()) {
            Block b = map.get(h);
            if (b == null) {
              continue;
            }
            if (b.count > 1) {
              map.put(h, b.withCount(b.count - 1));
            } else {
              map.remove(h);
            }
          }
        }
      }
    }
  }

  /** Forgets a worker rank. */
  public void removeWorker(WorkerKey key) {
    workers.remove(key);
  }

  /** Number of engine blocks recorded (all workers, tiers). */
  public long blocks() {
    long n = 0;
    for (WorkerBlocks wb : workers.values()) {
      synchronized (wb) {
        for (LinkedHashMap<Long, Block> m : wb.tiers.values()) {
          n += m.size();
        }
      }
    }
    return n;
  }

  /**
   * The journal as single-block stored events (sequence -1), each block after its parent; a block
   * whose parent is no longer held is dropped with its descendants, as the index would drop it.
   * Blocks stored several times are emitted that many times (the index counts references).
   */
  public List<KvEvent.Stored> dump() {
    List<KvEvent.Stored> out = new ArrayList<>();
    for (Map.Entry<WorkerKey, WorkerBlocks> e : workers.entrySet()) {
      WorkerKey key = e.getKey();
      WorkerBlocks wb = e.getValue();
      synchronized (wb) {
        for (Map.Entry<StorageTier, LinkedHashMap<Long, Block>> t : wb.tiers.entrySet()) {
          emitInParentOrder(key, t.getKey(), t.getValue(), out);
        }
      }
    }
    return out;
  }

  private static void emitInParentOrder(
      WorkerKey key,
      StorageTier tier,
      LinkedHashMap<Long, Block> blocks,
      List<KvEvent.Stored> out) {
    Map<Long, List<Long>> children = new HashMap<>();
    Deque<Long> ready = new ArrayDeque<>();
    for (Map.Entry<Long, Block> b : blocks.entrySet()) {
      Block v = b.getValue();
      if (!v.hasParent) {
        ready.add(b.getKey());
      } else {
        children.computeIfAbsent(v.parent, p -> new ArrayList<>()).add(b.getKey());
      }
    }
    while (!ready.isEmpty()) {
      long h = ready.poll();
      Block b = blocks.get(h);
      for (int i = 0; i < b.count; i++) {
        out.add(
            new KvEvent.Stored(
                key.workerId(),
                key.dpRank(),
                -1,
                tier,
                new long[] {h},
                b.hasParent ? b.parent : null,
                b.tokens,
                b.blockSize,
                b.mm.length == 0 ? List.of() : List.of(b.mm),
                b.lora,
                b.salt));
      }
      List<Long> kids = children.remove(h);
      if (kids != null) {
        ready.addAll(kids);
      }
    }
  }

  /** Writes {@link #dump()} to {@code out}. */
  public void writeTo(DataOutputStream out) throws IOException {
    write(dump(), out);
  }

  /** Writes single-block stored events (a {@link #dump()}) to {@code out}. */
  public static void write(List<KvEvent.Stored> events, DataOutputStream out) throws IOException {
    out.writeInt(events.size());
    for (KvEvent.Stored s : events) {
      out.writeUTF(s.workerId());
      out.writeInt(s.dpRank());
      out.writeByte(s.tier().ordinal());
      out.writeLong(s.blockHashes()[0]);
      out.writeBoolean(s.parentHash() != null);
      out.writeLong(s.parentHash() == null ? 0 : s.parentHash());
      out.writeInt(s.blockSize());
      int[] tokens = s.tokenIds();
      out.writeInt(tokens.length);
      for (int t : tokens) {
        out.writeInt(t);
      }
      long[] mm = s.mmHashesOfBlock(0);
      out.writeInt(mm.length);
      for (long m : mm) {
        out.writeLong(m);
      }
      writeNullable(out, s.loraName());
      writeNullable(out, s.cacheSalt());
    }
  }

  /** Reads events written by {@link #writeTo}; bounds every length against {@code maxItems}. */
  public static List<KvEvent.Stored> readFrom(DataInputStream in, int maxItems) throws IOException {
    int n = checked(in.readInt(), maxItems, "events");
    List<KvEvent.Stored> out = new ArrayList<>(Math.min(n, 1 << 16));
    StorageTier[] tiers = StorageTier.values();
    for (int i = 0; i < n; i++) {
      String worker = in.readUTF();
      int rank = in.readInt();
      int tierOrd = in.readUnsignedByte();
      if (tierOrd >= tiers.length) {
        throw new IOException("bad tier " + tierOrd);
      }
      long hash = in.readLong();
      boolean hasParent = in.readBoolean();
      long parent = in.readLong();
      int bs = in.readInt();
      int[] tokens = new int[checked(in.readInt(), maxItems, "tokens")];
      for (int t = 0; t < tokens.length; t++) {
        tokens[t] = in.readInt();
      }
      long[] mm = new long[checked(in.readInt(), maxItems, "mm hashes")];
      for (int m = 0; m < mm.length; m++) {
        mm[m] = in.readLong();
      }
      String lora = readNullable(in);
      String salt = readNullable(in);
      try {
        out.add(
            new KvEvent.Stored(
                worker,
                rank,
                -1,
                tiers[tierOrd],
                new long[] {hash},
                hasParent ? parent : null,
                tokens,
                bs,
                mm.length == 0 ? List.of() : List.of(mm),
                lora,
                salt));
      } catch (IllegalArgumentException | NullPointerException e) {
        throw new IOException("bad stored block in snapshot: " + e.getMessage(), e);
      }
    }
    return out;
  }

  private static int checked(int n, int max, String what) throws IOException {
    if (n < 0 || n > max) {
      throw new IOException("snapshot " + what + " count out of range: " + n);
    }
    return n;
  }

  private static void writeNullable(DataOutputStream out, String s) throws IOException {
    out.writeBoolean(s != null);
    if (s != null) {
      out.writeUTF(s);
    }
  }

  private static String readNullable(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readUTF() : null;
  }
}
