package io.sightline.adapter.trtllm;

import java.util.List;

/**
 * One TensorRT-LLM KV cache event as {@code POST /kv_cache_events} returns it ({@code
 * tensorrt_llm/_utils.py KVCacheEventSerializer}; {@code ../shared/reference/trtllm.md} §2): {@code
 * {event_id, data, window_size, attention_dp_rank?, hash_algo?, layer_group_id?}}. Block hashes are
 * unsigned 64-bit JSON numbers kept as their bit pattern in a {@code long} (V2 64-hex string hashes
 * use their first 16 hex digits, as {@code v2_sha256_64} does).
 */
public record TrtKvEvent(long eventId, int windowSize, int dpRank, Data data) {

  /** The {@code data} member, by its {@code type}. */
  public sealed interface Data {}

  /** Emitted once per attention window at engine start; {@code event_id} restarts at 0. */
  public record Created(int[] numBlocksPerCacheLevel) implements Data {}

  /** Blocks stored, each with its own tokens. */
  public record Stored(Long parentHash, List<Block> blocks) implements Data {}

  /** Blocks evicted. */
  public record Removed(long[] blockHashes) implements Data {}

  /** A block's cache level or priority changed (e.g. offload GPU → host, 0 → 1). */
  public record Updated(long blockHash, Integer newCacheLevel) implements Data {}

  /** An event type this adapter does not know. */
  public record Unknown(String type) implements Data {}

  /**
   * One stored block.
   *
   * @param hash engine block hash
   * @param tokenIds the block's token ids ({@code token_id} of each {@code unique_token})
   * @param cacheLevel 0 = GPU, 1 = host
   * @param mmKeys multimodal items overlapping the block
   * @param cacheSalt {@code cache_salt} when present
   * @param digestTokens true when some token ids were V2 64-hex digest strings (not representable)
   */
  public record Block(
      long hash,
      int[] tokenIds,
      int cacheLevel,
      List<MmKey> mmKeys,
      String cacheSalt,
      boolean digestTokens) {}

  /**
   * A multimodal key: {@code hash} is the 64-hex content digest or, when the caller supplied one,
   * the uuid itself (V1); V2 keeps the digest in {@code hash} and the caller's id in {@code uuid}.
   */
  public record MmKey(String hash, int startOffset, String uuid) {
    /** The identifier to map to an mm_hash: the caller's uuid when present, else the hash. */
    public String identifier() {
      return uuid != null && !uuid.isEmpty() ? uuid : hash;
    }
  }
}
