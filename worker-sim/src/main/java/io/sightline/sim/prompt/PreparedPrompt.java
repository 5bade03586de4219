package io.sightline.sim.prompt;

import java.util.List;

/**
 * A request's prompt after the engine's input processing: token ids with every image expanded to
 * the model's placeholder count, where each image sits, and the per-request keys that enter block
 * hashes.
 *
 * @param tokens expanded prompt token ids
 * @param items image placeholder runs in prompt order
 * @param loraName LoRA adapter name (vLLM: the {@code model} names a LoRA), or null
 * @param loraId LoRA integer id (TRT-LLM {@code lora_request.lora_int_id}), or null
 * @param cacheSalt {@code cache_salt}, or null
 */
public record PreparedPrompt(
    int[] tokens, List<MmItem> items, String loraName, Long loraId, String cacheSalt) {

  /** One image's run of placeholder tokens: {@code [offset, offset + length)}. */
  public record MmItem(int offset, int length, SimImage image) {}

  public PreparedPrompt {
    items = List.copyOf(items);
  }

  public int length() {
    return tokens.length;
  }
}
