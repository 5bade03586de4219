package io.sightline.sim.cache;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A paged KV cache with prefix caching, modelled on vLLM's v1 {@code BlockPool} / {@code
 * KVCacheManager} ({@code ../shared/reference/llmd.md} §1): a fixed pool of physical blocks, a map
 * from block hash to the physical block holding it, and a free queue in LRU order.
 *
 * <ul>
 *   <li>Freed blocks keep their contents and hash; they go to the tail of the free queue (a
 *       request's blocks are freed last-block-first, so a sequence's tail is evicted before its
 *       head, as vLLM does).
 *   <li>A new allocation takes blocks from the head of the free queue. Taking a block that still
 *       holds a cached hash evicts it: that is the moment vLLM emits {@code BlockRemoved} (freeing
 *       alone emits nothing).
 *   <li>A prefix hit takes the matching cached blocks out of the free queue (or just adds a
 *       reference when another running request uses them).
 *   <li>When a block's hash is already cached by another physical block, the new copy stays
 *       uncached (no duplicate {@code BlockStored}); simpler than vLLM's per-hash block sets, and
 *       consumers never need reference counts for this simulator.
 * </ul>
 *
 * Every change is reported to the listener as {@link CacheEvent}s, one list per operation, while
 * the cache lock is held so the event order equals the mutation order. Thread-safe (one monitor).
 */
public final class PrefixCache {

  /** Debug view of one cached block. */
  public record CachedBlock(
      int physicalId, BlockId id, BlockId parent, BlockSpec spec, int refCount) {}

  /**
   * A request's hold on cache blocks.
   *
   * @param blocks the physical blocks, prompt first, in sequence order
   * @param matchedBlocks how many leading blocks were prefix-cache hits
   * @param matchedTokens how many prompt tokens those hits cover
   */
  public record Allocation(List<Integer> blocks, int matchedBlocks, int matchedTokens) {}

  private static final class Block {
    final int physicalId;
    int refCount;
    BlockId id;
    BlockId parent;
    BlockSpec spec;

    Block(int physicalId) {
      this.physicalId = physicalId;
    }
  }

  private final int blockSize;
  private final Block[] blocks;
  private final Map<BlockId, Block> cached = new HashMap<>();
  private final LinkedHashSet<Block> freeQueue = new LinkedHashSet<>();
  private final Consumer<List<CacheEvent>> listener;

  public PrefixCache(int numBlocks, int blockSize, Consumer<List<CacheEvent>> listener) {
    if (numBlocks <= 0 || blockSize <= 0) {
      throw new IllegalArgumentException("numBlocks and blockSize must be positive");
    }
    this.blockSize = blockSize;
    this.blocks = new Block[numBlocks];
    this.listener = listener == null ? e -> {} : listener;
    for (int i = 0; i < numBlocks; i++) {
      blocks[i] = new Block(i);
      freeQueue.add(blocks[i]);
    }
  }

  public int blockSize() {
    return blockSize;
  }

  public int numBlocks() {
    return blocks.length;
  }

  /** Number of leading blocks of {@code prompt} (at most {@code limit}) that are cached now. */
  public synchronized int peekMatch(List<BlockSpec> prompt, int limit) {
    int n = 0;
    while (n < Math.min(limit, prompt.size()) && cached.containsKey(prompt.get(n).id())) {
      n++;
    }
    return n;
  }

  /**
   * Reserves {@code totalBlocks} blocks for a request whose prompt hashes to {@code prompt},
   * reusing up to {@code matchLimit} leading cached blocks, and caches the prompt blocks it had to
   * compute. Returns null, changing nothing, when the pool cannot supply the blocks now.
   */
  public synchronized Allocation allocate(List<BlockSpec> prompt, int matchLimit, int totalBlocks) {
    int matched = 0;
    int matchedInFreeQueue = 0;
    int limit = Math.min(matchLimit, prompt.size());
    List<Block> hits = new ArrayList<>();
    while (matched < limit) {
      Block b = cached.get(prompt.get(matched).id());
      if (b == null) {
        break;
      }
      hits.add(b);
      if (b.refCount == 0) {
        matchedInFreeQueue++;
      }
      matched++;
    }
    int needed = Math.max(0, totalBlocks - matched);
    if (needed > freeQueue.size() - matchedInFreeQueue) {
      return null;
    }
    List<CacheEvent> events = new ArrayList<>();
    List<Integer> held = new ArrayList<>(Math.max(totalBlocks, matched));
    int matchedTokens = 0;
    for (Block b : hits) {
      if (b.refCount++ == 0) {
        freeQueue.remove(b);
      }
      held.add(b.physicalId);
      matchedTokens += b.spec.tokens().length;
    }
    List<BlockId> evicted = new ArrayList<>();
    List<Block> fresh = new ArrayList<>(needed);
    Iterator<Block> it = freeQueue.iterator();
    for (int i = 0; i < needed; i++) {
      Block b = it.next();
      it.remove();
      if (b.id != null) {
        cached.remove(b.id);
        evicted.add(b.id);
        b.id = null;
        b.parent = null;
        b.spec = null;
      }
      b.refCount = 1;
      fresh.add(b);
      held.add(b.physicalId);
    }
    if (!evicted.isEmpty()) {
      events.add(new CacheEvent.Removed(evicted));
    }
    BlockId parent = matched == 0 ? null : prompt.get(matched - 1).id();
    BlockId runParent = parent;
    List<BlockSpec> run = new ArrayList<>();
    for (int i = matched; i < prompt.size() && i - matched < fresh.size(); i++) {
      BlockSpec spec = prompt.get(i);
      Block b = fresh.get(i - matched);
      if (cached.containsKey(spec.id())) {
        // Another physical block already holds this hash: keep this copy uncached.
        if (!run.isEmpty()) {
          events.add(new CacheEvent.Stored(runParent, run));
          run = new ArrayList<>();
        }
        runParent = spec.id();
        parent = spec.id();
        continue;
      }
      b.id = spec.id();
      b.parent = parent;
      b.spec = spec;
      cached.put(spec.id(), b);
      run.add(spec);
      parent = spec.id();
    }
    if (!run.isEmpty()) {
      events.add(new CacheEvent.Stored(runParent, run));
    }
    if (!events.isEmpty()) {
      listener.accept(events);
    }
    return new Allocation(List.copyOf(held), matched, matchedTokens);
  }

  /** Releases a request's blocks; cached ones stay reusable until evicted. */
  public synchronized void free(Allocation allocation) {
    List<Integer> held = allocation.blocks();
    for (int i = held.size() - 1; i >= 0; i--) {
      Block b = blocks[held.get(i)];
      if (b.refCount <= 0) {
        throw new IllegalStateException("block " + b.physicalId + " freed twice");
      }
      if (--b.refCount == 0) {
        if (b.id == null) {
          // Uncached blocks are preferred for reuse: put them at the head, like vLLM's null hash.
          freeQueue.addFirst(b);
        } else {
          freeQueue.add(b);
        }
      }
    }
  }

  /**
   * Drops every cached hash ({@code reset_prefix_cache}); blocks in use stay allocated. Emits
   * {@link CacheEvent.Cleared}.
   */
  public synchronized void clear() {
    List<BlockId> dropped = new ArrayList<>(cached.keySet().size());
    for (Block b : blocks) {
      if (b.id != null) {
        dropped.add(b.id);
      }
      b.id = null;
      b.parent = null;
      b.spec = null;
    }
    cached.clear();
    listener.accept(List.of(new CacheEvent.Cleared(dropped)));
  }

  /** Forgets everything without emitting events (an engine restart loses its cache silently). */
  public synchronized void resetSilently() {
    cached.clear();
    freeQueue.clear();
    for (Block b : blocks) {
      b.id = null;
      b.parent = null;
      b.spec = null;
      b.refCount = 0;
      freeQueue.add(b);
    }
  }

  /** Blocks referenced by running requests. */
  public synchronized int usedBlocks() {
    return blocks.length - freeQueue.size();
  }

  /** Blocks holding a cached hash (in use or free). */
  public synchronized int cachedBlocks() {
    return cached.size();
  }

  /** {@code vllm:kv_cache_usage_perc}: fraction of blocks not in the free queue. */
  public synchronized double usage() {
    return (double) (blocks.length - freeQueue.size()) / blocks.length;
  }

  /** The cache's true contents, for tests and the {@code /sim/cache} endpoint. */
  public synchronized List<CachedBlock> snapshot() {
    List<CachedBlock> out = new ArrayList<>(cached.size());
    for (Block b : blocks) {
      if (b.id != null) {
        out.add(new CachedBlock(b.physicalId, b.id, b.parent, b.spec, b.refCount));
      }
    }
    return out;
  }

  /** Whether a block with this identity is cached. */
  public synchronized boolean contains(BlockId id) {
    return cached.containsKey(id);
  }
}
