package io.sightline.sim.cache;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * Identity of a cached block as the engine sees it: the 64-bit value published in events, and for
 * vLLM the full digest the chain is built from (two blocks are the same only if their full digests
 * are equal, as in vLLM's {@code BlockHash} bytes; TRT-LLM's V1 hash is only 64 bits wide).
 */
public final class BlockId {
  private final long eventHash;
  private final byte[] digest;
  private final int hash;

  private BlockId(long eventHash, byte[] digest) {
    this.eventHash = eventHash;
    this.digest = digest;
    this.hash = digest == null ? Long.hashCode(eventHash) : Arrays.hashCode(digest);
  }

  /** A vLLM block: full digest; the event value is its last 8 bytes. */
  public static BlockId ofDigest(byte[] digest, long eventHash) {
    return new BlockId(eventHash, digest.clone());
  }

  /** A TRT-LLM block: the 64-bit hash is the whole identity. */
  public static BlockId ofHash(long hash) {
    return new BlockId(hash, null);
  }

  /** The value published in KV events (read as unsigned 64-bit). */
  public long eventHash() {
    return eventHash;
  }

  /** The full digest (vLLM), or null. */
  public byte[] digest() {
    return digest == null ? null : digest.clone();
  }

  byte[] rawDigest() {
    return digest;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof BlockId other)) {
      return false;
    }
    return digest == null
        ? other.digest == null && eventHash == other.eventHash
        : Arrays.equals(digest, other.digest);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return digest == null ? Long.toUnsignedString(eventHash) : HexFormat.of().formatHex(digest);
  }
}
