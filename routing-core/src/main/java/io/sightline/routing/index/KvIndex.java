package io.sightline.routing.index;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Which worker rank holds (or is predicted to hold) which KV block: a concurrent radix tree keyed
 * by Sightline's local block hashes, fed by normalised {@link KvEvent}s and by routing predictions.
 *
 * <h2>Structure</h2>
 *
 * Modelled on Dynamo's {@code RadixTree}/{@code ConcurrentRadixTree} ({@code
 * ../shared/reference/dynamo.md} §3) and llm-d's dual-key index ({@code llmd.md} §3):
 *
 * <ul>
 *   <li>A node is one block at one position of one prefix: {@code (parent, localHash)}. Its
 *       children are keyed by local hash (a single child inline, up to 8 in a small array, then a
 *       {@link ConcurrentHashMap}). The path from the root spells the prefix, so a worker's
 *       consecutive match depth is found by one walk.
 *   <li>A node's holders are packed {@code long}s, the first inline in the node (most blocks have
 *       one holder; this saves an array per node), the rest in a small immutable array: high 32
 *       bits {@code slot << 3 | code} (code = storage tier 0..3, or 4 = prediction), low 32 bits
 *       the reference count (events: duplicate stores of a block by the same engine hash or by
 *       several engine hashes) or, for predictions, the expiry in milliseconds (wrap-safe
 *       comparison). So there is one entry per (worker, dp rank, tier) per block.
 *   <li>Each node also keeps a 64-bit summary: when non-zero, bit {@code s} = slot {@code s} (< 64)
 *       holds a device-tier event entry and the node has no other entry; zero = no entries, or some
 *       entry is another tier, a prediction or a slot ≥ 64. Where it is non-zero (the common case,
 *       up to 64 worker ranks) a query advances every rank with one AND of its "still matching"
 *       bitmask instead of visiting the entries.
 *   <li>Each (worker, rank) has, per tier, a fastutil {@code long → node} map from the engine block
 *       hash to the node of that block (the last local sub-block when an engine block is split),
 *       making parent lookup and removal O(1) per block. Engine hashes are opaque and are never
 *       compared across workers. A side map records the rare entries with a reference count above 1
 *       or a split span above 1.
 *   <li>Predictions (approximate / speculative routing) are holder entries with code 4 on the same
 *       nodes, so a query merges them with event entries in the same walk (per block the best
 *       source wins: the max of the two). They expire by TTL and are bounded by an entry budget
 *       with LRU eviction ({@link IndexConfig#predictedEntryBudget()}).
 * </ul>
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li><b>Reads take no lock.</b> {@link #query} follows volatile {@code children}, {@code more}
 *       and {@code first} fields. Arrays are replaced copy-on-write under the node's monitor, so a
 *       reader always sees a consistent array; in-place updates only touch the low 32 bits of an
 *       entry (count/expiry), which a reader of the high bits does not depend on. When the inline
 *       entry is removed while others exist, the writer first copies the last array entry inline
 *       and then shrinks the array, and readers read the array before the inline entry, so no other
 *       holder ever vanishes from a reader's view (it may be seen twice, which the walk ignores). A
 *       query racing with writers sees each block either before or after a concurrent update —
 *       never a torn node.
 *   <li><b>Per-worker ordering.</b> Events of one (worker, rank) are applied under that worker's
 *       own monitor, so they apply in order and its engine-hash maps (plain fastutil maps) need no
 *       other synchronisation. Different workers apply in parallel.
 *   <li><b>Shared nodes.</b> Writers from different workers meet only at nodes: a child is created
 *       and a holder added while holding the parent's monitor and then the child's; pruning an
 *       empty, childless node also takes parent then child. Locks are only ever nested top-down
 *       (parent before child), so there is no deadlock, and a node cannot be unlinked while a
 *       writer is adding a holder to it. A node a worker extends from is never pruned under it: it
 *       carries that worker's own holder entry, which only that worker's (serialised) events or the
 *       prediction lock can remove.
 *   <li>Predictions are written under one prediction lock (write path only: routing decisions),
 *       which also guards the LRU of prediction entries. Lock order: worker → prediction → node.
 * </ul>
 *
 * <h2>Semantics</h2>
 *
 * Stored: local hashes come from the event's tokens ({@link StoredBlockConverter}); the parent is
 * looked up in the worker's map for the event's tier, then the other tiers; an unknown parent drops
 * the event (as Dynamo). Re-storing an engine hash at the same node increments its count; storing
 * it at a different node first drops the old mapping. Removed: decrements, unknown hashes are
 * counted and ignored; a node's descendants stay (a query stops at the gap anyway). Cleared: drops
 * every entry and prediction of the rank. Query: per worker rank, the consecutive prefix from block
 * 0 held on any tier or predicted, weighted per block by the best source.
 */
public final class KvIndex {

  static final int CODE_PREDICTED = 4;
  private static final int DEVICE_CODE = 0; // StorageTier.DEVICE.ordinal()
  private static final int CODES = 5;
  private static final long[] NO_HOLDERS = new long[0];
  private static final long[] DEAD = new long[0];
  private static final long NONE = -1L;
  private static final int FAST_SLOTS = 64;
  private static final long COMPLEX = 0L; // a node's mask when its entries must be read
  // denser than fastutil's 0.75 default: engine maps are the largest per-entry cost after nodes
  private static final float MAP_LOAD_FACTOR = 0.9f;
  private static final int SMALL_CHILDREN = 8;
  private static final long SWEEP_INTERVAL_MS = 1000;
  private static final int WARNINGS_PER_REASON = 3;

  /** Counted in {@link IndexStats#rejected()}: a token-less store of a block the worker lacks. */
  public static final String REJECT_TIER_UPDATE_UNKNOWN = "tier_update_unknown_block";

  // JDK platform logging keeps routing-core free of logging frameworks; it is routed to the
  // application's logger (e.g. SLF4J) by whatever System.LoggerFinder the application installs.
  private static final System.Logger LOG = System.getLogger(KvIndex.class.getName());

  /** One block at one prefix position. */
  static final class Node {
    final long localHash;
    final Node parent;
    volatile Object children; // null | Node | Node[] | ConcurrentHashMap<Long, Node>
    // Holder entries: the first inline (NONE when absent), the rest in an immutable array. See
    // the class comment for the write/read order that keeps lock-free readers consistent.
    volatile long first = NONE;
    // Summary of the holders for the query fast path: when non-zero, bit s = slot s (< 64) holds
    // a DEVICE event entry and there is no other entry. Zero (COMPLEX) = no entries, or some
    // entry is another tier, a prediction or a slot >= 64, so readers must look at the entries
    // (an empty node reads as no holders either way). Written after the entries it summarises.
    volatile long mask;
    volatile long[] more = NO_HOLDERS;

    Node(long localHash, Node parent) {
      this.localHash = localHash;
      this.parent = parent;
    }

    Node child(long hash) {
      Object c = children;
      if (c == null) {
        return null;
      }
      if (c instanceof Node n) {
        return n.localHash == hash ? n : null;
      }
      if (c instanceof Node[] arr) {
        for (Node n : arr) {
          if (n.localHash == hash) {
            return n;
          }
        }
        return null;
      }
      @SuppressWarnings("unchecked")
      ConcurrentHashMap<Long, Node> map = (ConcurrentHashMap<Long, Node>) c;
      return map.get(hash);
    }

    // Under this node's monitor.
    void addChild(Node n) {
      Object c = children;
      if (c == null) {
        children = n;
      } else if (c instanceof Node single) {
        children = new Node[] {single, n};
      } else if (c instanceof Node[] arr) {
        if (arr.length < SMALL_CHILDREN) {
          Node[] grown = Arrays.copyOf(arr, arr.length + 1);
          grown[arr.length] = n;
          children = grown;
        } else {
          ConcurrentHashMap<Long, Node> map = new ConcurrentHashMap<>();
          for (Node x : arr) {
            map.put(x.localHash, x);
          }
          map.put(n.localHash, n);
          children = map;
        }
      } else {
        @SuppressWarnings("unchecked")
        ConcurrentHashMap<Long, Node> map = (ConcurrentHashMap<Long, Node>) c;
        map.put(n.localHash, n);
      }
    }

    // Under this node's monitor.
    void removeChild(Node n) {
      Object c = children;
      if (c == n) {
        children = null;
      } else if (c instanceof Node[] arr) {
        int idx = -1;
        for (int i = 0; i < arr.length; i++) {
          if (arr[i] == n) {
            idx = i;
          }
        }
        if (idx < 0) {
          return;
        }
        if (arr.length == 2) {
          children = arr[1 - idx];
        } else {
          Node[] shrunk = new Node[arr.length - 1];
          System.arraycopy(arr, 0, shrunk, 0, idx);
          System.arraycopy(arr, idx + 1, shrunk, idx, arr.length - idx - 1);
          children = shrunk;
        }
      } else if (c instanceof ConcurrentHashMap<?, ?> map) {
        map.remove(n.localHash, n);
        if (map.isEmpty()) {
          children = null;
        }
      }
    }

    boolean hasChildren() {
      return children != null;
    }

    boolean noHolders() {
      return first == NONE && more.length == 0;
    }

    boolean dead() {
      return more == DEAD;
    }

    /** Entry of {@code holder}, or NONE. Under the monitor or for diagnostics. */
    long entryOf(int holder) {
      long[] m = more;
      long f = first;
      if (f != NONE && (int) (f >>> 32) == holder) {
        return f;
      }
      for (long e : m) {
        if ((int) (e >>> 32) == holder) {
          return e;
        }
      }
      return NONE;
    }
  }

  /** Per (worker, rank) state; guarded by its own monitor. */
  private static final class WorkerState {
    final WorkerKey key;
    final int slot;

    @SuppressWarnings("unchecked")
    final Long2ObjectOpenHashMap<Node>[] engine = new Long2ObjectOpenHashMap[4];

    final Long2LongOpenHashMap[] extra = new Long2LongOpenHashMap[4]; // span << 32 | count
    long lastSequence = -1;

    WorkerState(WorkerKey key, int slot) {
      this.key = key;
      this.slot = slot;
    }

    Long2ObjectOpenHashMap<Node> map(int code) {
      Long2ObjectOpenHashMap<Node> m = engine[code];
      if (m == null) {
        m = new Long2ObjectOpenHashMap<>(16, MAP_LOAD_FACTOR);
        engine[code] = m;
      }
      return m;
    }

    Long2LongOpenHashMap extra(int code) {
      Long2LongOpenHashMap m = extra[code];
      if (m == null) {
        m = new Long2LongOpenHashMap(16, MAP_LOAD_FACTOR);
        m.defaultReturnValue(DEFAULT_EXTRA);
        extra[code] = m;
      }
      return m;
    }
  }

  private static final long DEFAULT_EXTRA = (1L << 32) | 1L;

  private record PredKey(Node node, int slot) {}

  private final Node root = new Node(0L, null);
  private final StoredBlockConverter converter;
  private final IndexConfig config;
  private final LongSupplier nanoClock;
  private final long epochNanos;
  private final double[] weights = new double[CODES];
  private final int[] rank = new int[CODES];

  private final ConcurrentHashMap<WorkerKey, WorkerState> workers = new ConcurrentHashMap<>();
  private final Object slotLock = new Object();
  private volatile WorkerKey[] slotKeys = new WorkerKey[0];

  private final ReentrantLock predLock = new ReentrantLock();
  private final LinkedHashMap<PredKey, Boolean> predLru = new LinkedHashMap<>(1024, 0.75f, true);
  private long lastSweepMs;

  private final LongAdder nodes = new LongAdder();
  private final LongAdder entries = new LongAdder();
  private final LongAdder eventsApplied = new LongAdder();
  private final LongAdder blocksStored = new LongAdder();
  private final LongAdder blocksRemoved = new LongAdder();
  private final LongAdder duplicates = new LongAdder();
  private final LongAdder unknownParents = new LongAdder();
  private final LongAdder unknownRemovals = new LongAdder();
  private final LongAdder sequenceResets = new LongAdder();
  private final LongAdder predictionEvictions = new LongAdder();
  private final ConcurrentHashMap<String, LongAdder> rejected = new ConcurrentHashMap<>();

  public KvIndex(StoredBlockConverter converter) {
    this(converter, IndexConfig.DEFAULTS, System::nanoTime);
  }

  /**
   * @param converter turns stored events into local hashes under the model's block size and scheme
   * @param config weights and budgets
   * @param nanoClock monotonic clock in nanoseconds (injectable for tests)
   */
  public KvIndex(StoredBlockConverter converter, IndexConfig config, LongSupplier nanoClock) {
    this.converter = Objects.requireNonNull(converter, "converter");
    this.config = Objects.requireNonNull(config, "config");
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    this.epochNanos = nanoClock.getAsLong();
    for (StorageTier t : StorageTier.values()) {
      weights[t.ordinal()] = config.weight(t);
    }
    weights[CODE_PREDICTED] = 1.0;
    // preference among equal weights: device event > prediction > host > disk > external
    rank[StorageTier.DEVICE.ordinal()] = 4;
    rank[CODE_PREDICTED] = 3;
    rank[StorageTier.HOST.ordinal()] = 2;
    rank[StorageTier.DISK.ordinal()] = 1;
    rank[StorageTier.EXTERNAL.ordinal()] = 0;
  }

  public StoredBlockConverter converter() {
    return converter;
  }

  public IndexConfig config() {
    return config;
  }

  // ---------------------------------------------------------------------------------- events

  /** Applies one event; events of one worker rank must be passed in order (any thread). */
  public ApplyOutcome apply(KvEvent event) {
    WorkerState ws = state(new WorkerKey(event.workerId(), event.dpRank()));
    synchronized (ws) {
      if (isDuplicate(ws, event.sequence())) {
        duplicates.increment();
        return ApplyOutcome.DUPLICATE;
      }
      ApplyOutcome outcome =
          switch (event) {
            case KvEvent.Stored s -> applyStored(ws, s);
            case KvEvent.Removed r -> applyRemoved(ws, r);
            case KvEvent.Cleared c -> applyCleared(ws);
          };
      if (event.sequence() >= 0) {
        ws.lastSequence = event.sequence();
      }
      eventsApplied.increment();
      return outcome;
    }
  }

  private boolean isDuplicate(WorkerState ws, long seq) {
    if (seq < 0 || ws.lastSequence < 0 || seq > ws.lastSequence) {
      return false;
    }
    if (ws.lastSequence - seq <= config.replayWindow()) {
      return true;
    }
    sequenceResets.increment();
    return false;
  }

  private ApplyOutcome applyStored(WorkerState ws, KvEvent.Stored ev) {
    if (ev.tokenIds().length == 0 && ev.blockHashes().length > 0) {
      return applyTierUpdate(ws, ev);
    }
    StoredBlockConverter.Result result = converter.convert(ev);
    if (result instanceof StoredBlockConverter.Rejected rej) {
      LongAdder count = rejected.computeIfAbsent(rej.reason(), k -> new LongAdder());
      count.increment();
      if (count.sum() <= WARNINGS_PER_REASON) { // throttled, as Dynamo's "Block not published"
        LOG.log(
            System.Logger.Level.WARNING,
            "KV event from {0} rejected ({1}): {2}; further ones are only counted",
            ws.key,
            rej.reason(),
            rej.detail());
      }
      return ApplyOutcome.REJECTED;
    }
    StoredBlockConverter.Converted conv = (StoredBlockConverter.Converted) result;
    int code = ev.tier().ordinal();
    Node cur = root;
    if (ev.parentHash() != null) {
      cur = findEngine(ws, code, ev.parentHash());
      if (cur == null) {
        unknownParents.increment();
        return ApplyOutcome.UNKNOWN_PARENT;
      }
    }
    int holder = holderId(ws.slot, code);
    int span = conv.span();
    long[] local = conv.localHashes();
    long[] engineHashes = ev.blockHashes();
    Long2ObjectOpenHashMap<Node> map = ws.map(code);
    for (int j = 0; j < engineHashes.length; j++) {
      Node tail = cur;
      for (int s = 0; s < span; s++) {
        tail = addChildWithHolder(tail, local[j * span + s], holder, 1, false);
      }
      long eh = engineHashes[j];
      Node prev = map.get(eh);
      if (prev == null) {
        map.put(eh, tail);
        if (span != 1) {
          ws.extra(code).put(eh, pack(span, 1));
        }
      } else {
        long ex = extraOf(ws, code, eh);
        if (prev == tail && spanOf(ex) == span) {
          ws.extra(code).put(eh, pack(span, countOf(ex) + 1));
        } else {
          // the engine reused a hash for different content: forget the old mapping first
          map.put(eh, tail);
          if (span != 1) {
            ws.extra(code).put(eh, pack(span, 1));
          } else if (ws.extra[code] != null) {
            ws.extra[code].remove(eh);
          }
          releasePath(prev, spanOf(ex), holder, countOf(ex));
        }
      }
      cur = tail;
    }
    blocksStored.add((long) local.length);
    return ApplyOutcome.APPLIED;
  }

  /**
   * A token-less store (vLLM CPU offload, llm-d "tier update"): blocks this worker already holds on
   * some tier, identified by engine hash, are now also held on the event's tier. Each block takes
   * the prefix position (node and split span) of the existing entry; unknown hashes are counted.
   */
  private ApplyOutcome applyTierUpdate(WorkerState ws, KvEvent.Stored ev) {
    int code = ev.tier().ordinal();
    int holder = holderId(ws.slot, code);
    Long2ObjectOpenHashMap<Node> map = ws.map(code);
    for (long eh : ev.blockHashes()) {
      int sourceCode = code;
      Node tail = ws.engine[code] == null ? null : ws.engine[code].get(eh);
      for (int c = 0; c < 4 && tail == null; c++) {
        if (c != code && ws.engine[c] != null) {
          tail = ws.engine[c].get(eh);
          sourceCode = c;
        }
      }
      if (tail == null) {
        rejected.computeIfAbsent(REJECT_TIER_UPDATE_UNKNOWN, k -> new LongAdder()).increment();
        continue;
      }
      int span = spanOf(extraOf(ws, sourceCode, eh));
      // the span nodes from the top down, re-entered through their parents (lock order)
      Node[] path = new Node[span];
      Node n = tail;
      for (int s = span - 1; s >= 0; s--) {
        path[s] = n;
        n = n.parent;
      }
      for (Node p : path) {
        addChildWithHolder(p.parent, p.localHash, holder, 1, false);
      }
      Node prev = map.get(eh);
      long ex = extraOf(ws, code, eh);
      if (prev == tail && spanOf(ex) == span) {
        ws.extra(code).put(eh, pack(span, countOf(ex) + 1));
      } else {
        map.put(eh, tail);
        if (span != 1) {
          ws.extra(code).put(eh, pack(span, 1));
        } else if (ws.extra[code] != null) {
          ws.extra[code].remove(eh);
        }
        if (prev != null) {
          releasePath(prev, spanOf(ex), holder, countOf(ex));
        }
      }
      blocksStored.add(span);
    }
    return ApplyOutcome.APPLIED;
  }

  private ApplyOutcome applyRemoved(WorkerState ws, KvEvent.Removed ev) {
    int code = ev.tier().ordinal();
    Long2ObjectOpenHashMap<Node> map = ws.engine[code];
    int holder = holderId(ws.slot, code);
    for (long eh : ev.blockHashes()) {
      Node tail = map == null ? null : map.get(eh);
      if (tail == null) {
        unknownRemovals.increment();
        continue;
      }
      long ex = extraOf(ws, code, eh);
      int count = countOf(ex);
      if (count > 1) {
        ws.extra(code).put(eh, pack(spanOf(ex), count - 1));
      } else {
        map.remove(eh);
        if (ws.extra[code] != null) {
          ws.extra[code].remove(eh);
        }
      }
      releasePath(tail, spanOf(ex), holder, 1);
      blocksRemoved.add(spanOf(ex));
    }
    return ApplyOutcome.APPLIED;
  }

  private ApplyOutcome applyCleared(WorkerState ws) {
    for (int code = 0; code < 4; code++) {
      Long2ObjectOpenHashMap<Node> map = ws.engine[code];
      if (map == null) {
        continue;
      }
      int holder = holderId(ws.slot, code);
      for (Long2ObjectMap.Entry<Node> e : map.long2ObjectEntrySet()) {
        long ex = extraOf(ws, code, e.getLongKey());
        releasePath(e.getValue(), spanOf(ex), holder, countOf(ex));
      }
      ws.engine[code] = null;
      ws.extra[code] = null;
    }
    dropPredictions(ws.slot);
    return ApplyOutcome.APPLIED;
  }

  private static Node findEngine(WorkerState ws, int code, long engineHash) {
    Long2ObjectOpenHashMap<Node> own = ws.engine[code];
    Node n = own == null ? null : own.get(engineHash);
    if (n != null) {
      return n;
    }
    for (int c = 0; c < 4; c++) {
      if (c != code && ws.engine[c] != null) {
        n = ws.engine[c].get(engineHash);
        if (n != null) {
          return n;
        }
      }
    }
    return null;
  }

  private static long extraOf(WorkerState ws, int code, long eh) {
    Long2LongOpenHashMap m = ws.extra[code];
    return m == null ? DEFAULT_EXTRA : m.get(eh);
  }

  private static long pack(int span, int count) {
    return ((long) span << 32) | (count & 0xFFFFFFFFL);
  }

  private static int spanOf(long extra) {
    return (int) (extra >>> 32);
  }

  private static int countOf(long extra) {
    return (int) extra;
  }

  // ---------------------------------------------------------------------------- predictions

  /**
   * Predicts that {@code worker} holds the blocks {@code localHashes} (from block 0) for {@code
   * ttlMillis}: approximate mode (no events, Dynamo {@code router_ttl_secs} 120 s) or speculative
   * entries until events confirm (llm-d {@code speculativeTTL} 2 s). Refreshes existing
   * predictions. Evicts least recently predicted entries beyond the budget.
   */
  public void predict(WorkerKey worker, long[] localHashes, long ttlMillis) {
    if (ttlMillis <= 0 || localHashes.length == 0 || config.predictedEntryBudget() == 0) {
      return;
    }
    WorkerState ws = state(worker);
    int holder = holderId(ws.slot, CODE_PREDICTED);
    long nowMs = nowMillis();
    int expiry = (int) (nowMs + ttlMillis);
    int limit = Math.min(localHashes.length, config.predictedEntryBudget());
    predLock.lock();
    try {
      Node cur = root;
      for (int i = 0; i < limit; i++) {
        cur = addChildWithHolder(cur, localHashes[i], holder, expiry, true);
        predLru.put(new PredKey(cur, ws.slot), Boolean.TRUE);
      }
      Iterator<PredKey> it = predLru.keySet().iterator();
      while (predLru.size() > config.predictedEntryBudget() && it.hasNext()) {
        PredKey k = it.next();
        it.remove();
        predictionEvictions.increment();
        releasePredicted(k);
      }
      if (nowMs - lastSweepMs >= SWEEP_INTERVAL_MS) {
        lastSweepMs = nowMs;
        sweepExpiredLocked(nowMs, true);
      }
    } finally {
      predLock.unlock();
    }
  }

  /** Removes expired predictions now (they are already ignored by queries). */
  public void sweepExpired() {
    predLock.lock();
    try {
      long nowMs = nowMillis();
      lastSweepMs = nowMs;
      sweepExpiredLocked(nowMs, false);
    } finally {
      predLock.unlock();
    }
  }

  /**
   * Drops expired predictions. On the routing path ({@code stopAtLive}) it walks from the least
   * recently predicted entry and stops at the first live one, so the cost is proportional to what
   * expired (exact when all predictions share one TTL, as per mode they do); expired entries left
   * behind are ignored by queries and go with LRU eviction or a full sweep.
   */
  private void sweepExpiredLocked(long nowMs, boolean stopAtLive) {
    int now = (int) nowMs;
    Iterator<PredKey> it = predLru.keySet().iterator();
    while (it.hasNext()) {
      PredKey k = it.next();
      long e = k.node.entryOf(holderId(k.slot, CODE_PREDICTED));
      if (e == NONE || (int) e - now <= 0) {
        it.remove();
        releasePredicted(k);
      } else if (stopAtLive) {
        return;
      }
    }
  }

  private void dropPredictions(int slot) {
    predLock.lock();
    try {
      Iterator<PredKey> it = predLru.keySet().iterator();
      while (it.hasNext()) {
        PredKey k = it.next();
        if (k.slot == slot) {
          it.remove();
          releasePredicted(k);
        }
      }
    } finally {
      predLock.unlock();
    }
  }

  private void releasePredicted(PredKey k) {
    Node n = k.node;
    boolean empty;
    synchronized (n) {
      empty = removeHolderLocked(n, holderId(k.slot, CODE_PREDICTED), Integer.MAX_VALUE);
    }
    if (empty) {
      prune(n);
    }
  }

  /** Number of live prediction entries (including expired ones not yet swept). */
  public int predictedEntries() {
    predLock.lock();
    try {
      return predLru.size();
    } finally {
      predLock.unlock();
    }
  }

  // ---------------------------------------------------------------------------------- nodes

  private static int holderId(int slot, int code) {
    return (slot << 3) | code;
  }

  /**
   * Gets or creates {@code parent}'s child for {@code hash} and adds {@code amount} to the holder's
   * count (or, for predictions, sets its expiry to {@code amount}).
   */
  private Node addChildWithHolder(
      Node parent, long hash, int holder, int amount, boolean setValue) {
    synchronized (parent) {
      Node c = parent.child(hash);
      if (c == null) {
        c = new Node(hash, parent);
        parent.addChild(c);
        nodes.increment();
      }
      synchronized (c) {
        long f = c.first;
        if (f != NONE && (int) (f >>> 32) == holder) {
          int v = setValue ? amount : (int) f + amount;
          c.first = ((long) holder << 32) | (v & 0xFFFFFFFFL);
          return c;
        }
        long[] hs = c.more;
        for (int i = 0; i < hs.length; i++) {
          if ((int) (hs[i] >>> 32) == holder) {
            int v = setValue ? amount : (int) hs[i] + amount;
            hs[i] = ((long) holder << 32) | (v & 0xFFFFFFFFL); // low bits only: see class comment
            return c;
          }
        }
        long entry = ((long) holder << 32) | (amount & 0xFFFFFFFFL);
        long bit = maskBit(holder);
        if (f == NONE) { // no entries yet (the inline one is filled first)
          c.first = entry;
          c.mask = bit;
        } else {
          long[] grown = Arrays.copyOf(hs, hs.length + 1);
          grown[hs.length] = entry;
          c.more = grown;
          long old = c.mask;
          c.mask = old == COMPLEX || bit == COMPLEX ? COMPLEX : old | bit;
        }
        entries.increment();
      }
      return c;
    }
  }

  /** Subtracts {@code amount} from the holder on {@code span} nodes ending at {@code tail}. */
  private void releasePath(Node tail, int span, int holder, int amount) {
    Node n = tail;
    for (int s = 0; s < span && n != null && n != root; s++) {
      Node parent = n.parent;
      boolean empty;
      synchronized (n) {
        empty = removeHolderLocked(n, holder, amount);
      }
      if (empty) {
        prune(n);
      }
      n = parent;
    }
  }

  /** Under n's monitor: decrements; returns whether n is now empty and childless. */
  private boolean removeHolderLocked(Node n, int holder, int amount) {
    boolean predicted = (holder & 7) == CODE_PREDICTED;
    long f = n.first;
    long[] hs = n.more;
    if (f != NONE && (int) (f >>> 32) == holder) {
      int left = predicted ? 0 : (int) f - amount;
      if (left > 0) {
        n.first = ((long) holder << 32) | (left & 0xFFFFFFFFL);
        return false;
      }
      if (hs.length == 0) {
        n.first = NONE;
      } else {
        // move the last array entry inline first, then shrink: readers read `more` before
        // `first`, so they never miss that entry (they may see it twice, which is harmless)
        n.first = hs[hs.length - 1];
        n.more = hs.length == 1 ? NO_HOLDERS : Arrays.copyOf(hs, hs.length - 1);
      }
      entries.decrement();
      n.mask = maskOf(n);
      return n.noHolders() && !n.hasChildren();
    }
    for (int i = 0; i < hs.length; i++) {
      if ((int) (hs[i] >>> 32) == holder) {
        int left = predicted ? 0 : (int) hs[i] - amount;
        if (left > 0) {
          hs[i] = ((long) holder << 32) | (left & 0xFFFFFFFFL);
          return false;
        }
        long[] shrunk;
        if (hs.length == 1) {
          shrunk = NO_HOLDERS;
        } else {
          shrunk = new long[hs.length - 1];
          System.arraycopy(hs, 0, shrunk, 0, i);
          System.arraycopy(hs, i + 1, shrunk, i, hs.length - i - 1);
        }
        n.more = shrunk;
        entries.decrement();
        n.mask = maskOf(n);
        return n.noHolders() && !n.hasChildren();
      }
    }
    return false;
  }

  private static long maskBit(int holder) {
    int slot = holder >>> 3;
    return (holder & 7) == StorageTier.DEVICE.ordinal() && slot < FAST_SLOTS ? 1L << slot : COMPLEX;
  }

  // Under n's monitor.
  private static long maskOf(Node n) {
    long m = 0;
    if (n.first != NONE) {
      m = maskBit((int) (n.first >>> 32));
      if (m == COMPLEX) {
        return COMPLEX;
      }
    }
    for (long e : n.more) {
      long bit = maskBit((int) (e >>> 32));
      if (bit == COMPLEX) {
        return COMPLEX;
      }
      m |= bit;
    }
    return m;
  }

  /** Unlinks empty, childless nodes upwards from {@code n}. Locks parent then child. */
  private void prune(Node n) {
    while (n != null && n != root) {
      Node parent = n.parent;
      synchronized (parent) {
        if (parent.dead()) {
          return;
        }
        synchronized (n) {
          if (n.dead() || !n.noHolders() || n.hasChildren()) {
            return;
          }
          parent.removeChild(n);
          n.more = DEAD;
          nodes.decrement();
        }
        if (parent == root || !parent.noHolders() || parent.hasChildren()) {
          return;
        }
      }
      n = parent;
    }
  }

  // ---------------------------------------------------------------------------------- query

  /**
   * Each worker rank's consecutive-prefix match for the request's local block hashes, walking from
   * the root and stopping as soon as no worker can continue. Lock-free.
   */
  public OverlapScores query(long[] localHashes) {
    WorkerKey[] keys = slotKeys;
    int n = keys.length;
    if (n == 0 || localHashes.length == 0) {
      return new OverlapScores(localHashes.length, Map.of());
    }
    // Slots < 64 ("fast") are tracked as a bitmask of ranks still matching; at a node whose
    // holders are all device-tier event entries of fast slots (the common case) one AND advances
    // every rank. Other nodes ("complex") are read entry by entry. Slots >= 64 use per-slot
    // depth tracking. counts[] holds, per slot, blocks whose best source was not a device event
    // (plus device blocks of slow slots, which the result derives the same way).
    int fast = Math.min(n, FAST_SLOTS);
    int[] matched = new int[n];
    int[] counts = null; // allocated at the first complex node
    byte[] lvlBest = null;
    byte[] best = n > FAST_SLOTS ? new byte[n] : null;
    long alive = fast == 64 ? -1L : (1L << fast) - 1;
    int slowAlive = n - fast;
    int levels = 0;
    boolean haveNow = false;
    int now = 0;
    Node cur = root;
    for (int i = 0; i < localHashes.length; i++) {
      Node c = cur.child(localHashes[i]);
      if (c == null) {
        break;
      }
      long mask = c.mask;
      long next;
      int slowNext = 0;
      if (mask != COMPLEX) {
        next = alive & mask;
      } else {
        if (counts == null) {
          counts = new int[n * CODES];
          lvlBest = new byte[fast];
        }
        // read `more` before `first` (see removeHolderLocked)
        long[] hs = c.more;
        long f = c.first;
        long present = 0;
        for (int k = -1; k < hs.length; k++) {
          long e = k < 0 ? f : hs[k];
          if (e == NONE) {
            continue;
          }
          int h = (int) (e >>> 32);
          int slot = h >>> 3;
          int code = h & 7;
          if (slot >= n) {
            continue;
          }
          if (code == CODE_PREDICTED) {
            if (!haveNow) { // read the clock only when a prediction is met
              now = (int) nowMillis();
              haveNow = true;
            }
            if ((int) e - now <= 0) {
              continue;
            }
          }
          if (slot < fast) {
            long bit = 1L << slot;
            if ((alive & bit) == 0) {
              continue;
            }
            if ((present & bit) == 0) {
              present |= bit;
              lvlBest[slot] = (byte) code;
            } else if (better(code, lvlBest[slot])) {
              lvlBest[slot] = (byte) code;
            }
          } else {
            int m = matched[slot];
            if (m == i) {
              matched[slot] = i + 1;
              best[slot] = (byte) code;
              counts[slot * CODES + code]++;
              slowNext++;
            } else if (m == i + 1 && better(code, best[slot])) {
              counts[slot * CODES + best[slot]]--;
              best[slot] = (byte) code;
              counts[slot * CODES + code]++;
            }
          }
        }
        next = present;
        for (long b = present; b != 0; b &= b - 1) {
          int slot = Long.numberOfTrailingZeros(b);
          if (lvlBest[slot] != DEVICE_CODE) {
            counts[slot * CODES + lvlBest[slot]]++;
          }
        }
      }
      for (long d = alive & ~next; d != 0; d &= d - 1) {
        matched[Long.numberOfTrailingZeros(d)] = i;
      }
      alive = next;
      slowAlive = slowNext;
      if (alive == 0 && slowAlive == 0) {
        break;
      }
      levels = i + 1;
      cur = c;
    }
    for (long b = alive; b != 0; b &= b - 1) {
      matched[Long.numberOfTrailingZeros(b)] = levels;
    }
    // The result map is indexed by slot (no hashing of worker keys per query): lookups go through
    // the worker → slot map, iteration is in slot order.
    WorkerOverlap[] values = new WorkerOverlap[n];
    int hits = 0;
    for (int s = 0; s < n; s++) {
      if (matched[s] > 0) {
        hits++;
        if (counts == null) {
          values[s] = new WorkerOverlap(keys[s], matched[s], matched[s], 0, 0, 0, 0, matched[s]);
          continue;
        }
        int b = s * CODES;
        int pred = counts[b + CODE_PREDICTED];
        int host = counts[b + StorageTier.HOST.ordinal()];
        int disk = counts[b + StorageTier.DISK.ordinal()];
        int ext = counts[b + StorageTier.EXTERNAL.ordinal()];
        int device = matched[s] - pred - host - disk - ext;
        double weighted =
            device
                + pred * weights[CODE_PREDICTED]
                + host * weights[StorageTier.HOST.ordinal()]
                + disk * weights[StorageTier.DISK.ordinal()]
                + ext * weights[StorageTier.EXTERNAL.ordinal()];
        values[s] = new WorkerOverlap(keys[s], matched[s], device, pred, host, disk, ext, weighted);
      }
    }
    return new OverlapScores(
        localHashes.length, hits == 0 ? Map.of() : new SlotMap(keys, values, hits, workers));
  }

  /**
   * Read-only map of one query's overlaps, indexed by worker slot. Slots are assigned once per
   * worker rank and never reused, so {@code get} resolves a key through the index's worker map.
   */
  private static final class SlotMap extends AbstractMap<WorkerKey, WorkerOverlap> {
    private final WorkerKey[] keys;
    private final WorkerOverlap[] values;
    private final int size;
    private final ConcurrentHashMap<WorkerKey, WorkerState> slots;

    SlotMap(
        WorkerKey[] keys,
        WorkerOverlap[] values,
        int size,
        ConcurrentHashMap<WorkerKey, WorkerState> slots) {
      this.keys = keys;
      this.values = values;
      this.size = size;
      this.slots = slots;
    }

    @Override
    public WorkerOverlap get(Object key) {
      if (!(key instanceof WorkerKey)) {
        return null;
      }
      WorkerState ws = slots.get(key);
      return ws == null || ws.slot >= values.length ? null : values[ws.slot];
    }

    @Override
    public boolean containsKey(Object key) {
      return get(key) != null;
    }

    @Override
    public int size() {
      return size;
    }

    @Override
    public boolean isEmpty() {
      return size == 0;
    }

    @Override
    public Set<Entry<WorkerKey, WorkerOverlap>> entrySet() {
      return new AbstractSet<>() {
        @Override
        public int size() {
          return size;
        }

        @Override
        public Iterator<Entry<WorkerKey, WorkerOverlap>> iterator() {
          return new Iterator<>() {
            int next = advance(0);

            private int advance(int from) {
              int s = from;
              while (s < values.length && values[s] == null) {
                s++;
              }
              return s;
            }

            @Override
            public boolean hasNext() {
              return next < values.length;
            }

            @Override
            public Entry<WorkerKey, WorkerOverlap> next() {
              if (next >= values.length) {
                throw new NoSuchElementException();
              }
              int s = next;
              next = advance(s + 1);
              return new SimpleImmutableEntry<>(keys[s], values[s]);
            }
          };
        }
      };
    }
  }

  private boolean better(int code, int current) {
    double w = weights[code];
    double c = weights[current];
    return w > c || (w == c && rank[code] > rank[current]);
  }

  // ---------------------------------------------------------------------------------- misc

  private WorkerState state(WorkerKey key) {
    WorkerState ws = workers.get(key);
    if (ws != null) {
      return ws;
    }
    synchronized (slotLock) {
      ws = workers.get(key);
      if (ws == null) {
        WorkerKey[] old = slotKeys;
        if (old.length >= (1 << 28)) {
          throw new IllegalStateException("too many worker ranks");
        }
        ws = new WorkerState(key, old.length);
        WorkerKey[] grown = Arrays.copyOf(old, old.length + 1);
        grown[old.length] = key;
        workers.put(key, ws);
        slotKeys = grown;
      }
      return ws;
    }
  }

  private long nowMillis() {
    return (nanoClock.getAsLong() - epochNanos) / 1_000_000L;
  }

  /** Worker ranks the index has seen (events or predictions). */
  public List<WorkerKey> workers() {
    return List.copyOf(Arrays.asList(slotKeys));
  }

  /** Engine-hash entries a worker rank holds on a tier (for diagnostics and tests). */
  public int engineEntries(WorkerKey worker, StorageTier tier) {
    WorkerState ws = workers.get(worker);
    if (ws == null) {
      return 0;
    }
    synchronized (ws) {
      Long2ObjectOpenHashMap<Node> m = ws.engine[tier.ordinal()];
      return m == null ? 0 : m.size();
    }
  }

  /** Counters and sizes; cheap, approximate under concurrent writes. */
  public IndexStats stats() {
    Map<String, Long> rej = new HashMap<>();
    rejected.forEach((k, v) -> rej.put(k, v.sum()));
    return new IndexStats(
        nodes.sum(),
        entries.sum(),
        slotKeys.length,
        eventsApplied.sum(),
        blocksStored.sum(),
        blocksRemoved.sum(),
        duplicates.sum(),
        unknownParents.sum(),
        unknownRemovals.sum(),
        sequenceResets.sum(),
        predictionEvictions.sum(),
        rej);
  }

  /** Depth-first dump of (prefix depth, holders) for debugging small indexes. */
  List<String> dump() {
    List<String> out = new ArrayList<>();
    dump(root, 0, out);
    return out;
  }

  private void dump(Node node, int depth, List<String> out) {
    Object c = node.children;
    List<Node> kids = new ArrayList<>();
    if (c instanceof Node x) {
      kids.add(x);
    } else if (c instanceof Node[] arr) {
      kids.addAll(Arrays.asList(arr));
    } else if (c instanceof ConcurrentHashMap<?, ?> m) {
      for (Object v : m.values()) {
        kids.add((Node) v);
      }
    }
    for (Node k : kids) {
      StringBuilder sb = new StringBuilder();
      sb.append("  ".repeat(depth)).append(Long.toHexString(k.localHash)).append(' ');
      long[] all = Arrays.copyOf(k.more, k.more.length + 1);
      all[k.more.length] = k.first;
      for (long e : all) {
        if (e == NONE) {
          continue;
        }
        int h = (int) (e >>> 32);
        sb.append(slotKeys[h >>> 3])
            .append(':')
            .append(h & 7)
            .append('=')
            .append((int) e)
            .append(' ');
      }
      out.add(sb.toString());
      dump(k, depth + 1, out);
    }
  }
}
