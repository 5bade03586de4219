package io.sightline.sim.hash;

import java.util.List;

/**
 * TensorRT-LLM's V1 KV block key hash ({@code cpp/tensorrt_llm/batch_manager/blockKey.cpp}, {@code
 * BlockKeyHasher::hash}; Python mirror {@code tensorrt_llm/runtime/kv_cache_hash.py}; notes in
 * {@code ../shared/reference/trtllm.md} §2). The value is an unsigned 64-bit integer (a Java {@code
 * long} read as unsigned) and is what {@code /kv_cache_events} reports as {@code block_hash}.
 *
 * <pre>
 * seed = numTokens ^ (parent * 0xbf58476d1ce4e5b9)               (parent 0 at the root)
 * root and saltId set: seed = mix64(saltId, seed)
 * per token: seed = mix32(token_id, seed) [; mix64(token_extra_id, seed) when extra ids are used]
 * loraTaskId set: seed = mix64(loraTaskId, seed)
 * per mm key: 8 x mix32(little-endian u32 words of the 32-byte digest), mix64(start_offset)
 * </pre>
 *
 * The C++ adds {@code 0x9e3779b9} to the 32-bit mixed token in {@code uint32_t} arithmetic before
 * widening, which {@link #mix32} reproduces. The V1 string salt ({@code std::hash<std::string>}) is
 * implementation-defined and cannot be reproduced; the simulator derives a salt id itself (see
 * {@link #saltId}).
 */
public final class TrtllmBlockHasher {
  private static final long PARENT_CONST = 0xbf58476d1ce4e5b9L;
  private static final long MIX64_C1 = 0xbf58476d1ce4e5b9L;
  private static final long MIX64_C2 = 0x94d049bb133111ebL;
  private static final int MIX32_C = 0x45d9f3b;
  private static final long COMBINE = 0x9e3779b9L;

  private TrtllmBlockHasher() {}

  /** A multimodal key of a block: the item's 32-byte digest and the offset within the item. */
  public record MmKey(byte[] digest, int startOffset) {
    public MmKey {
      if (digest == null || digest.length != 32) {
        throw new IllegalArgumentException("TRT-LLM mm key digests are 32 bytes");
      }
    }
  }

  /**
   * Hash of one block.
   *
   * @param tokens the block's token ids (a partial block hashes only its own tokens)
   * @param parentHash the previous block's hash, 0 at the root
   * @param loraTaskId LoRA task id, or null
   * @param saltId cache salt id, or null (mixed only at the root)
   * @param mmKeys multimodal keys overlapping the block (may be empty)
   */
  public static long hash(
      int[] tokens, long parentHash, Long loraTaskId, Long saltId, List<MmKey> mmKeys) {
    long seed = tokens.length ^ (parentHash * PARENT_CONST);
    if (parentHash == 0 && saltId != null) {
      seed = mix64(saltId, seed);
    }
    for (int token : tokens) {
      seed = mix32(token, seed);
    }
    if (loraTaskId != null && loraTaskId != 0) {
      seed = mix64(loraTaskId, seed);
    }
    if (mmKeys != null) {
      for (MmKey key : mmKeys) {
        byte[] d = key.digest();
        for (int i = 0; i < 32; i += 4) {
          int word =
              (d[i] & 0xff)
                  | (d[i + 1] & 0xff) << 8
                  | (d[i + 2] & 0xff) << 16
                  | (d[i + 3] & 0xff) << 24;
          seed = mix32(word, seed);
        }
        seed = mix64(key.startOffset(), seed);
      }
    }
    return seed;
  }

  /**
   * The simulator's stand-in for a salt id: the first 8 bytes (little-endian) of SHA-256 of the
   * salt, as {@code get_cache_salt_id} in TRT-LLM's Python mirror derives it for the V2 manager.
   */
  public static long saltId(String salt) {
    byte[] d = VllmBlockHasher.sha256(salt.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = (v << 8) | (d[i] & 0xff);
    }
    return v;
  }

  static long mix32(int value, long seed) {
    int v = value;
    v = ((v >>> 16) ^ v) * MIX32_C;
    v = ((v >>> 16) ^ v) * MIX32_C;
    v = (v >>> 16) ^ v;
    long widened = (Integer.toUnsignedLong(v) + COMBINE) & 0xffffffffL;
    return seed ^ (widened + (seed << 6) + (seed >>> 2));
  }

  static long mix64(long value, long seed) {
    long v = value;
    v = (v ^ (v >>> 30)) * MIX64_C1;
    v = (v ^ (v >>> 27)) * MIX64_C2;
    v = v ^ (v >>> 31);
    return seed ^ (v + COMBINE + (seed << 6) + (seed >>> 2));
  }
}
