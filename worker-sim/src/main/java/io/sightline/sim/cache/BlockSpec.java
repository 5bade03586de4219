package io.sightline.sim.cache;

import io.sightline.sim.hash.ExtraKey;
import java.util.List;

/**
 * One prompt block as the engine hashed it: identity, its tokens and the per-block keys that went
 * into the hash (vLLM {@code extra_keys}; TRT-LLM {@code mm_keys}), kept so events and the debug
 * view can show them.
 *
 * @param id the engine's block identity
 * @param tokens token ids of the block (a TRT-LLM tail block may be partial)
 * @param extraKeys vLLM extra keys (empty when none)
 * @param mmKeys TRT-LLM multimodal keys (empty when none)
 * @param loraName the request's LoRA adapter name (vLLM {@code lora_name}), or null
 */
public record BlockSpec(
    BlockId id, int[] tokens, List<ExtraKey> extraKeys, List<MmKeyInfo> mmKeys, String loraName) {

  /** A TRT-LLM {@code mm_key}: the item's identifier (64-hex digest) and the offset in the item. */
  public record MmKeyInfo(String hash, int startOffset) {}

  public BlockSpec {
    extraKeys = extraKeys == null ? List.of() : List.copyOf(extraKeys);
    mmKeys = mmKeys == null ? List.of() : List.copyOf(mmKeys);
  }
}
