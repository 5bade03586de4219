package io.sightline.adapter.vllm;

import java.util.List;

/**
 * A vLLM KV cache event exactly as it came off the wire, before normalisation. Field meanings
 * follow vLLM's {@code vllm/distributed/kv_events.py} ({@code ../shared/reference/llmd.md} §1 and
 * {@code dynamo.md} §2.2). Hashes are engine block hashes reinterpreted as unsigned 64-bit values
 * (held in a {@code long}); they are opaque handles, only used to link parents and apply removals.
 */
public sealed interface VllmKvEvent {

  /**
   * Full blocks became cached.
   *
   * @param blockHashes engine hashes, one per block
   * @param parentHash engine hash of the block before the first one, {@code null} at sequence start
   * @param tokenIds concatenated tokens of all listed blocks (empty for a tokenless tier update)
   * @param blockSize tokens per block as the engine reports it
   * @param medium storage medium ("GPU", "CPU", …), {@code null} when absent (means GPU)
   * @param loraName LoRA adapter name or {@code null}
   * @param extraKeys per-block multimodal items; empty list when the event carries none
   * @param groupIdx KV cache group (hybrid models), {@code null} when absent (means 0)
   * @param kvCacheSpecKind spec kind ("full_attention", "sliding_window", …) or {@code null}
   * @param eagle true when token ids came as Eagle bigrams
   * @param cacheSalt {@code cache_salt} when the named encoding carries it, else {@code null}
   */
  record BlockStored(
      long[] blockHashes,
      Long parentHash,
      int[] tokenIds,
      int blockSize,
      String medium,
      String loraName,
      List<List<ExtraKey>> extraKeys,
      Integer groupIdx,
      String kvCacheSpecKind,
      boolean eagle,
      String cacheSalt)
      implements VllmKvEvent {}

  /** Cached blocks were evicted. */
  record BlockRemoved(long[] blockHashes, String medium, Integer groupIdx) implements VllmKvEvent {}

  /** The whole prefix cache was reset (GPU only). */
  record AllBlocksCleared() implements VllmKvEvent {}
}
