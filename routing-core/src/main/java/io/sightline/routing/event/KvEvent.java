package io.sightline.routing.event;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One normalised KV-cache event from one data-parallel rank of one worker. Every worker adapter
 * (vLLM ZMQ, TRT-LLM {@code /kv_cache_events}, Dynamo RouterEvent) decodes its wire format into
 * this model; {@code routing-core} never sees a wire format.
 *
 * <p>Design (see {@code ../shared/reference/dynamo.md} §2, {@code llmd.md} §1, 3 and {@code
 * trtllm.md} §2): engine block hashes are opaque 64-bit handles, used only to find a stored run's
 * parent and to apply removals. The index keys blocks by <em>local</em> hashes that it computes
 * itself from the event's token ids (and per-block multimodal hashes, under the model's scheme), so
 * the engine's hash algorithm, seed and block size never need to match Sightline's.
 *
 * <p>{@link #sequence()} is the adapter's monotonic event number for the (worker, rank) stream
 * (vLLM batch seq, TRT-LLM/Dynamo {@code event_id}); {@code -1} when the source has none. The index
 * applies one worker's events in the order given; gap detection and replay are the adapter's job.
 */
public sealed interface KvEvent permits KvEvent.Stored, KvEvent.Removed, KvEvent.Cleared {

  /** Worker id as registered (e.g. the registry's instance id). */
  String workerId();

  /** Data-parallel rank within the worker (0 when the engine is not data-parallel). */
  int dpRank();

  /** Monotonic sequence number of this event in its (worker, rank) stream, or -1 if unknown. */
  long sequence();

  /**
   * Blocks became cached. {@code tokenIds} holds the tokens of all blocks, in order: exactly {@code
   * blockHashes.length * blockSize} of them. {@code parentHash} is the engine hash of the block
   * before the first one listed, or {@code null} at the start of a sequence.
   *
   * <p>An event with blocks but <em>no</em> tokens is a tier update (vLLM CPU offload emits these;
   * see {@code llmd.md} §3): blocks the worker already holds on some tier, named by engine hash,
   * are now also held on {@code tier}; the parent is then ignored.
   *
   * @param blockHashes engine block hashes, one per block (opaque; u64 carried in a long)
   * @param parentHash engine hash of the preceding block, or {@code null}
   * @param tokenIds tokens of all blocks, concatenated
   * @param blockSize tokens per engine block ({@code block_size} on vLLM events)
   * @param blockMmHashes per block, the mm_hashes of the images overlapping it (convert event
   *     identifiers with {@code MmHashes.fromIdentifier}); an empty list, or a null/empty entry,
   *     means no image in that block. Either empty or one entry per block.
   * @param loraName LoRA adapter name, or {@code null} for the base model
   * @param cacheSalt cache namespace ({@code cache_salt}), or {@code null}
   * @param tier where the blocks are stored
   */
  record Stored(
      String workerId,
      int dpRank,
      long sequence,
      StorageTier tier,
      long[] blockHashes,
      Long parentHash,
      int[] tokenIds,
      int blockSize,
      List<long[]> blockMmHashes,
      String loraName,
      String cacheSalt)
      implements KvEvent {
    private static final long[] EMPTY = new long[0];

    public Stored {
      Objects.requireNonNull(workerId, "workerId");
      Objects.requireNonNull(tier, "tier");
      Objects.requireNonNull(blockHashes, "blockHashes");
      Objects.requireNonNull(tokenIds, "tokenIds");
      if (dpRank < 0) {
        throw new IllegalArgumentException("dpRank must be >= 0, was " + dpRank);
      }
      if (blockSize <= 0) {
        throw new IllegalArgumentException("blockSize must be > 0, was " + blockSize);
      }
      blockMmHashes =
          blockMmHashes == null
              ? List.of()
              : Collections.unmodifiableList(new ArrayList<>(blockMmHashes));
      if (!blockMmHashes.isEmpty() && blockMmHashes.size() != blockHashes.length) {
        throw new IllegalArgumentException(
            "blockMmHashes has "
                + blockMmHashes.size()
                + " entries for "
                + blockHashes.length
                + " blocks");
      }
      loraName = loraName == null || loraName.isEmpty() ? null : loraName;
      cacheSalt = cacheSalt == null || cacheSalt.isEmpty() ? null : cacheSalt;
    }

    /** A text-only device-tier store for the base model. */
    public static Stored of(
        String workerId,
        int dpRank,
        long sequence,
        long[] blockHashes,
        Long parentHash,
        int[] tokenIds,
        int blockSize) {
      return new Stored(
          workerId,
          dpRank,
          sequence,
          StorageTier.DEVICE,
          blockHashes,
          parentHash,
          tokenIds,
          blockSize,
          List.of(),
          null,
          null);
    }

    /** The mm_hashes of block {@code i}, or an empty array. */
    public long[] mmHashesOfBlock(int i) {
      if (blockMmHashes.isEmpty()) {
        return EMPTY;
      }
      long[] mm = blockMmHashes.get(i);
      return mm == null ? EMPTY : mm;
    }

    /** Whether any block carries multimodal hashes. */
    public boolean hasMultimodal() {
      for (long[] mm : blockMmHashes) {
        if (mm != null && mm.length > 0) {
          return true;
        }
      }
      return false;
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof Stored s)) {
        return false;
      }
      if (blockMmHashes.size() != s.blockMmHashes.size()) {
        return false;
      }
      for (int i = 0; i < blockMmHashes.size(); i++) {
        if (!Arrays.equals(mmHashesOfBlock(i), s.mmHashesOfBlock(i))) {
          return false;
        }
      }
      return workerId.equals(s.workerId)
          && dpRank == s.dpRank
          && sequence == s.sequence
          && tier == s.tier
          && Arrays.equals(blockHashes, s.blockHashes)
          && Objects.equals(parentHash, s.parentHash)
          && Arrays.equals(tokenIds, s.tokenIds)
          && blockSize == s.blockSize
          && Objects.equals(loraName, s.loraName)
          && Objects.equals(cacheSalt, s.cacheSalt);
    }

    @Override
    public int hashCode() {
      return Objects.hash(workerId, dpRank, sequence, tier, parentHash, blockSize)
          + 31 * Arrays.hashCode(blockHashes)
          + 17 * Arrays.hashCode(tokenIds);
    }

    @Override
    public String toString() {
      return "Stored[worker="
          + workerId
          + ", dp="
          + dpRank
          + ", seq="
          + sequence
          + ", tier="
          + tier
          + ", blocks="
          + blockHashes.length
          + ", parent="
          + parentHash
          + ", tokens="
          + tokenIds.length
          + ", blockSize="
          + blockSize
          + ", mm="
          + hasMultimodal()
          + ", lora="
          + loraName
          + "]";
    }
  }

  /** Blocks were evicted from {@code tier}. Unknown hashes are ignored (and counted). */
  record Removed(String workerId, int dpRank, long sequence, StorageTier tier, long[] blockHashes)
      implements KvEvent {
    public Removed {
      Objects.requireNonNull(workerId, "workerId");
      Objects.requireNonNull(tier, "tier");
      Objects.requireNonNull(blockHashes, "blockHashes");
      if (dpRank < 0) {
        throw new IllegalArgumentException("dpRank must be >= 0, was " + dpRank);
      }
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Removed r
          && workerId.equals(r.workerId)
          && dpRank == r.dpRank
          && sequence == r.sequence
          && tier == r.tier
          && Arrays.equals(blockHashes, r.blockHashes);
    }

    @Override
    public int hashCode() {
      return Objects.hash(workerId, dpRank, sequence, tier) + 31 * Arrays.hashCode(blockHashes);
    }

    @Override
    public String toString() {
      return "Removed[worker="
          + workerId
          + ", dp="
          + dpRank
          + ", seq="
          + sequence
          + ", tier="
          + tier
          + ", hashes="
          + Arrays.toString(blockHashes)
          + "]";
    }
  }

  /** Every block of this (worker, rank) was dropped, on every tier (prefix-cache reset). */
  record Cleared(String workerId, int dpRank, long sequence) implements KvEvent {
    public Cleared {
      Objects.requireNonNull(workerId, "workerId");
      if (dpRank < 0) {
        throw new IllegalArgumentException("dpRank must be >= 0, was " + dpRank);
      }
    }
  }
}
