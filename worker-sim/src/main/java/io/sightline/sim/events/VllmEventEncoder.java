package io.sightline.sim.events;

import io.sightline.sim.cache.BlockId;
import io.sightline.sim.cache.BlockSpec;
import io.sightline.sim.cache.CacheEvent;
import io.sightline.sim.hash.ExtraKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.List;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;

/**
 * Encodes a batch of cache changes as vLLM's {@code KVEventBatch} in msgpack ({@code
 * vllm/distributed/kv_events.py}; {@code ../shared/reference/llmd.md} §1, {@code dynamo.md} §2.2).
 *
 * <pre>
 * batch  = [ts: float64, events: array, data_parallel_rank: int]
 * ARRAY  = ["BlockStored", block_hashes, parent_block_hash|nil, token_ids, block_size,
 *           lora_id|nil, medium, lora_name|nil, extra_keys]   (extra_keys omitted when nil)
 *          ["BlockRemoved", block_hashes, medium]  /  ["AllBlocksCleared"]
 * MAP    = {"type": "BlockStored", "block_hashes": …, …}   (vLLM PR #42892, v0.26+)
 * </pre>
 *
 * Hashes are vLLM's {@code VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=1} ints: the low 64 bits of the
 * digest, written as msgpack uint64 when above {@code Long.MAX_VALUE} (msgspec encodes Python ints
 * that way). Token ids are written unsigned. {@code extra_keys} holds one entry per block: nil, or
 * a list of strings (LoRA name, cache salt) and {@code [identifier, offset]} pairs. Fields equal to
 * their default ({@code omit_defaults}) are left out in both encodings, as msgspec does.
 */
public final class VllmEventEncoder {

  /** Inner event encoding. */
  public enum Format {
    /** Positional arrays tagged by class name (most deployed vLLM versions). */
    ARRAY,
    /** Maps with a {@code "type"} key (vLLM ≥ 0.26). */
    MAP
  }

  private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

  private final Format format;
  private final int blockSize;

  public VllmEventEncoder(Format format, int blockSize) {
    this.format = format;
    this.blockSize = blockSize;
  }

  public byte[] encodeBatch(double timestamp, List<CacheEvent> events, int dpRank) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(3);
      p.packDouble(timestamp);
      p.packArrayHeader(events.size());
      for (CacheEvent e : events) {
        switch (e) {
          case CacheEvent.Stored s -> stored(p, s);
          case CacheEvent.Removed r -> removed(p, r.blocks());
          case CacheEvent.Cleared c -> cleared(p);
        }
      }
      p.packInt(dpRank);
      return p.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void stored(MessagePacker p, CacheEvent.Stored s) throws IOException {
    List<BlockSpec> blocks = s.blocks();
    boolean anyExtra = blocks.stream().anyMatch(b -> !b.extraKeys().isEmpty());
    String loraName = blocks.getFirst().loraName();
    int tokenCount = blocks.stream().mapToInt(b -> b.tokens().length).sum();
    if (format == Format.ARRAY) {
      p.packArrayHeader(anyExtra ? 9 : 8);
      p.packString("BlockStored");
    } else {
      p.packMapHeader(anyExtra ? 9 : 8);
      p.packString("type");
      p.packString("BlockStored");
      p.packString("block_hashes");
    }
    p.packArrayHeader(blocks.size());
    for (BlockSpec b : blocks) {
      packHash(p, b.id());
    }
    key(p, "parent_block_hash");
    if (s.parent() == null) {
      p.packNil();
    } else {
      packHash(p, s.parent());
    }
    key(p, "token_ids");
    p.packArrayHeader(tokenCount);
    for (BlockSpec b : blocks) {
      for (int t : b.tokens()) {
        p.packLong(Integer.toUnsignedLong(t));
      }
    }
    key(p, "block_size");
    p.packInt(blockSize);
    key(p, "lora_id");
    p.packNil();
    key(p, "medium");
    p.packString("GPU");
    key(p, "lora_name");
    if (loraName == null) {
      p.packNil();
    } else {
      p.packString(loraName);
    }
    if (anyExtra) {
      key(p, "extra_keys");
      p.packArrayHeader(blocks.size());
      for (BlockSpec b : blocks) {
        if (b.extraKeys().isEmpty()) {
          p.packNil();
          continue;
        }
        p.packArrayHeader(b.extraKeys().size());
        for (ExtraKey k : b.extraKeys()) {
          switch (k) {
            case ExtraKey.Text t -> p.packString(t.value());
            case ExtraKey.Mm m -> {
              p.packArrayHeader(2);
              p.packString(m.identifier());
              p.packInt(m.offset());
            }
          }
        }
      }
    }
  }

  private void removed(MessagePacker p, List<BlockId> ids) throws IOException {
    if (format == Format.ARRAY) {
      p.packArrayHeader(3);
      p.packString("BlockRemoved");
    } else {
      p.packMapHeader(3);
      p.packString("type");
      p.packString("BlockRemoved");
      p.packString("block_hashes");
    }
    p.packArrayHeader(ids.size());
    for (BlockId id : ids) {
      packHash(p, id);
    }
    key(p, "medium");
    p.packString("GPU");
  }

  private void cleared(MessagePacker p) throws IOException {
    if (format == Format.ARRAY) {
      p.packArrayHeader(1);
    } else {
      p.packMapHeader(1);
      p.packString("type");
    }
    p.packString("AllBlocksCleared");
  }

  private void key(MessagePacker p, String name) throws IOException {
    if (format == Format.MAP) {
      p.packString(name);
    }
  }

  static void packHash(MessagePacker p, BlockId id) throws IOException {
    long h = id.eventHash();
    if (h >= 0) {
      p.packLong(h);
    } else {
      p.packBigInteger(BigInteger.valueOf(h).add(TWO_64));
    }
  }
}
