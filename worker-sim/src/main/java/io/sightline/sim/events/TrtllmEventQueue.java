package io.sightline.sim.events;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.sim.cache.BlockId;
import io.sightline.sim.cache.BlockSpec;
import io.sightline.sim.cache.CacheEvent;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * TensorRT-LLM's buffered KV-event queue behind {@code POST /kv_cache_events} ({@code
 * tensorrt_llm/_utils.py KVCacheEventSerializer}; {@code ../shared/reference/trtllm.md} §2). Events
 * are JSON objects {@code {event_id, data, window_size, attention_dp_rank}} with consecutive {@code
 * event_id}s from 0; the first is {@code created}. Reads drain the queue (destructive, like the
 * real endpoint); the queue holds at most {@code maxSize} events, dropping the oldest ({@code
 * event_buffer_max_size}). Hashes are unsigned 64-bit JSON numbers. Cache clears are reported as
 * {@code removed} (TRT-LLM has no clear event). Fault injection drops a fraction of events, which
 * consumers see as {@code event_id} gaps.
 */
public final class TrtllmEventQueue {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

  /**
   * TRT-LLM's default retention priority ({@code
   * KvCacheRetentionConfig::kDefaultRetentionPriority}).
   */
  private static final int DEFAULT_PRIORITY = 35;

  private final int numBlocks;
  private final int windowSize;
  private final int dpRank;
  private final int maxSize;
  private final ArrayDeque<ObjectNode> queue = new ArrayDeque<>();
  private long nextId;
  private volatile java.util.function.DoubleSupplier dropFraction = () -> 0.0;

  public TrtllmEventQueue(int numBlocks, int windowSize, int dpRank, int maxSize) {
    this.numBlocks = numBlocks;
    this.windowSize = windowSize;
    this.dpRank = dpRank;
    this.maxSize = maxSize;
    restart();
  }

  /** Event ids start again at 0 with a {@code created} event (an engine restart). */
  public synchronized void restart() {
    queue.clear();
    nextId = 0;
    ObjectNode data = F.objectNode().put("type", "created");
    data.putArray("num_blocks_per_cache_level").add(numBlocks).add(0);
    add(data, false);
  }

  public void setDropFraction(double fraction) {
    double f = Math.clamp(fraction, 0.0, 1.0);
    this.dropFraction = () -> f;
  }

  /** Reads the drop fraction from {@code source} for every event (live fault settings). */
  public void setDropFraction(java.util.function.DoubleSupplier source) {
    this.dropFraction = source;
  }

  /** Appends the events of one cache operation. */
  public synchronized void publish(List<CacheEvent> events) {
    for (CacheEvent e : events) {
      switch (e) {
        case CacheEvent.Stored s -> add(stored(s), true);
        case CacheEvent.Removed r -> add(removed(r.blocks()), true);
        case CacheEvent.Cleared c -> {
          if (!c.blocks().isEmpty()) {
            add(removed(c.blocks()), true);
          }
        }
      }
    }
  }

  /** Returns and removes every queued event. */
  public synchronized ArrayNode drain() {
    ArrayNode out = F.arrayNode(queue.size());
    while (!queue.isEmpty()) {
      out.add(queue.removeFirst());
    }
    return out;
  }

  private void add(ObjectNode data, boolean droppable) {
    long id = nextId++;
    double drop = dropFraction.getAsDouble();
    if (droppable && drop > 0 && ThreadLocalRandom.current().nextDouble() < drop) {
      return;
    }
    ObjectNode event = F.objectNode();
    event.put("event_id", id);
    event.set("data", data);
    event.put("window_size", windowSize);
    event.put("attention_dp_rank", dpRank);
    queue.addLast(event);
    while (queue.size() > maxSize) {
      queue.removeFirst();
    }
  }

  private static ObjectNode stored(CacheEvent.Stored s) {
    ObjectNode data = F.objectNode().put("type", "stored");
    if (s.parent() == null) {
      data.putNull("parent_hash");
    } else {
      data.set("parent_hash", hash(s.parent()));
    }
    ArrayNode blocks = data.putArray("blocks");
    for (BlockSpec b : s.blocks()) {
      ObjectNode block = blocks.addObject().put("type", "stored_block");
      block.set("block_hash", hash(b.id()));
      ArrayNode tokens = block.putArray("tokens");
      for (int t : b.tokens()) {
        tokens
            .addObject()
            .put("type", "unique_token")
            .put("token_id", Integer.toUnsignedLong(t))
            .put("token_extra_id", 0);
      }
      block.put("cache_level", 0);
      block.put("priority", DEFAULT_PRIORITY);
      ArrayNode mm = block.putArray("mm_keys");
      for (BlockSpec.MmKeyInfo k : b.mmKeys()) {
        mm.addObject()
            .put("type", "mm_key")
            .put("hash", k.hash())
            .put("start_offset", k.startOffset());
      }
    }
    return data;
  }

  private static ObjectNode removed(List<BlockId> ids) {
    ObjectNode data = F.objectNode().put("type", "removed");
    ArrayNode hashes = data.putArray("block_hashes");
    for (BlockId id : ids) {
      hashes.add(hash(id));
    }
    return data;
  }

  private static com.fasterxml.jackson.databind.JsonNode hash(BlockId id) {
    long h = id.eventHash();
    return h >= 0 ? F.numberNode(h) : F.numberNode(BigInteger.valueOf(h).add(TWO_64));
  }
}
