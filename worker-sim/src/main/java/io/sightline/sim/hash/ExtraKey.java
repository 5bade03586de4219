package io.sightline.sim.hash;

/**
 * One element of a vLLM block's {@code extra_keys} tuple ({@code ../shared/reference/llmd.md} §1,
 * §2). vLLM composes, per block and in this order: the LoRA name, one {@code (identifier, offset)}
 * tuple per multimodal item overlapping the block, the cache salt (block 0 only). The same objects
 * are hashed (as CBOR) and published in {@code BlockStored.extra_keys}.
 */
public sealed interface ExtraKey {

  /** A plain string element: a LoRA name or a cache salt (CBOR text / msgpack str). */
  record Text(String value) implements ExtraKey {
    public Text {
      if (value == null) {
        throw new IllegalArgumentException("extra key text must not be null");
      }
    }
  }

  /**
   * A multimodal item overlapping the block: its identifier (the caller's uuid, or the engine's own
   * mm hash) and {@code item_offset - block_start} — negative when the item began in an earlier
   * block (vLLM #36708). Encoded as a 2-element array.
   */
  record Mm(String identifier, int offset) implements ExtraKey {
    public Mm {
      if (identifier == null) {
        throw new IllegalArgumentException("multimodal identifier must not be null");
      }
    }
  }

  static ExtraKey text(String value) {
    return new Text(value);
  }

  static ExtraKey mm(String identifier, int offset) {
    return new Mm(identifier, offset);
  }
}
