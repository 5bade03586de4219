package io.sightline.routing.hashing;

import com.dynatrace.hash4j.hashing.HashStream64;
import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Computes KV block hashes bit-for-bit as NVIDIA Dynamo's KV router does, so that Sightline's index
 * can be fed by any engine whose events carry token ids.
 *
 * <p>Design (see {@code ../shared/reference/dynamo.md} §1): the prompt's routing token ids are cut
 * into full blocks of {@code blockSize} tokens (a trailing partial block is never hashed). Each
 * block's <em>local</em> hash is XXH3-64 of its tokens as little-endian u32, with seed 1337 plus
 * the optional LoRA salt ({@code xxh3(lora, 0)}) and cache-namespace salt ({@code xxh3(ns, 1)}),
 * wrapping addition. Under the Gen-1 multimodal scheme the sorted mm_hashes of the images that
 * overlap a block are appended to its bytes as little-endian u64. The chained <em>sequence</em>
 * hash folds each local hash into its predecessor: {@code seq[i] = xxh3(le64(seq[i-1]) ++
 * le64(local[i]), 1337)}, {@code seq[0] = local[0]}.
 *
 * <p>Instances are immutable and thread-safe; one per (block size, LoRA, namespace).
 */
public final class BlockHasher {
  /** Dynamo's {@code XXH3_SEED}. */
  public static final long SEED = 1337L;

  private static final Hasher64 SALT_LORA = Hashing.xxh3_64(0L);
  private static final Hasher64 SALT_NAMESPACE = Hashing.xxh3_64(1L);
  private static final Hasher64 CHAIN = Hashing.xxh3_64(SEED);

  private final int blockSize;
  private final long seed;
  private final Hasher64 hasher;

  private BlockHasher(int blockSize, long seed) {
    this.blockSize = blockSize;
    this.seed = seed;
    this.hasher = Hashing.xxh3_64(seed);
  }

  /** A hasher for the base model with no cache namespace. */
  public static BlockHasher of(int blockSize) {
    return of(blockSize, null, null);
  }

  /**
   * A hasher for {@code blockSize}-token blocks, salted by the LoRA adapter name and the cache
   * namespace ({@code cache_salt} on the wire); {@code null} or empty means absent.
   */
  public static BlockHasher of(int blockSize, String loraName, String cacheNamespace) {
    if (blockSize < 0) {
      throw new IllegalArgumentException("block size must be >= 0, was " + blockSize);
    }
    return new BlockHasher(blockSize, seedFor(loraName, cacheNamespace));
  }

  /** The XXH3 seed for a LoRA name and cache namespace (wrapping addition of salts to 1337). */
  public static long seedFor(String loraName, String cacheNamespace) {
    long seed = SEED;
    if (loraName != null && !loraName.isEmpty()) {
      seed += SALT_LORA.hashBytesToLong(loraName.getBytes(StandardCharsets.UTF_8));
    }
    if (cacheNamespace != null && !cacheNamespace.isEmpty()) {
      seed += SALT_NAMESPACE.hashBytesToLong(cacheNamespace.getBytes(StandardCharsets.UTF_8));
    }
    return seed;
  }

  public int blockSize() {
    return blockSize;
  }

  public long seed() {
    return seed;
  }

  /** Number of full blocks in {@code tokenCount} tokens. */
  public int fullBlocks(int tokenCount) {
    return blockSize == 0 ? 0 : tokenCount / blockSize;
  }

  /** Local hashes of the full blocks of {@code tokens} (no multimodal info). */
  public long[] localHashes(int[] tokens) {
    return localHashes(tokens, tokens.length, null);
  }

  /**
   * Local hashes of the full blocks among the first {@code length} tokens. {@code blockMmHashes},
   * when not null, gives per block the mm_hashes (Gen-1) to append; a null or empty entry means the
   * block carries no image. Entries are sorted here (duplicates kept), as Dynamo does.
   */
  public long[] localHashes(int[] tokens, int length, List<long[]> blockMmHashes) {
    Objects.checkFromIndexSize(0, length, tokens.length);
    int blocks = fullBlocks(length);
    long[] out = new long[blocks];
    HashStream64 stream = hasher.hashStream();
    for (int b = 0; b < blocks; b++) {
      stream.reset();
      int start = b * blockSize;
      for (int i = start, end = start + blockSize; i < end; i++) {
        stream.putInt(tokens[i]);
      }
      long[] mm = blockMmHashes == null || b >= blockMmHashes.size() ? null : blockMmHashes.get(b);
      if (mm != null && mm.length > 0) {
        long[] sorted = mm.clone();
        sortUnsigned(sorted);
        for (long h : sorted) {
          stream.putLong(h);
        }
      }
      out[b] = stream.getAsLong();
    }
    return out;
  }

  /** Local hash of one block given as a token array of exactly {@link #blockSize()} tokens. */
  public long localHash(int[] blockTokens, long[] mmHashes) {
    if (blockTokens.length != blockSize) {
      throw new IllegalArgumentException(
          "block has " + blockTokens.length + " tokens, expected " + blockSize);
    }
    return localHashes(
        blockTokens, blockTokens.length, mmHashes == null ? null : List.of(mmHashes))[0];
  }

  /** Chained sequence hashes of a run of local hashes starting at block 0. */
  public static long[] sequenceHashes(long[] localHashes) {
    long[] seq = new long[localHashes.length];
    if (seq.length == 0) {
      return seq;
    }
    seq[0] = localHashes[0];
    for (int i = 1; i < seq.length; i++) {
      seq[i] = chain(seq[i - 1], localHashes[i]);
    }
    return seq;
  }

  /** One step of the sequence-hash chain. */
  public static long chain(long parentSequenceHash, long localHash) {
    return CHAIN.hashStream().putLong(parentSequenceHash).putLong(localHash).getAsLong();
  }

  // Dynamo sorts u64 values; Java's long sort is signed, so sort by unsigned order.
  private static void sortUnsigned(long[] values) {
    for (int i = 0; i < values.length; i++) {
      values[i] ^= Long.MIN_VALUE;
    }
    Arrays.sort(values);
    for (int i = 0; i < values.length; i++) {
      values[i] ^= Long.MIN_VALUE;
    }
  }
}
