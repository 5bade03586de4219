package io.sightline.adapter.vllm;

import java.util.OptionalInt;

/**
 * One multimodal item named in a block's {@code extra_keys}: the engine-side identifier (the uuid
 * Sightline forwarded, or vLLM's own mm_hash) and, from vLLM 0.19 on, the item's offset relative to
 * the block start (negative when the item began in an earlier block). Bare-string items carry no
 * offset. See {@code ../shared/reference/llmd.md} §1 "Multimodal extra_keys".
 */
public record ExtraKey(String identifier, OptionalInt blockRelativeOffset) {
  public ExtraKey {
    if (identifier == null || identifier.isEmpty()) {
      throw new IllegalArgumentException("identifier must be non-empty");
    }
  }

  static ExtraKey bare(String identifier) {
    return new ExtraKey(identifier, OptionalInt.empty());
  }
}
