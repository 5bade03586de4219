package io.sightline.routing.index;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.expansion.MmScheme;
import io.sightline.routing.hashing.BlockHasher;
import io.sightline.routing.multimodal.MmHashes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns the blocks of a {@link KvEvent.Stored} event into Sightline's own local block hashes, as
 * Dynamo's router does ({@code ../shared/reference/dynamo.md} §1.3 "event side", §2.2
 * "Conversion"), so the engine's own hash algorithm and block size never need to match ours.
 *
 * <ul>
 *   <li><b>Block size.</b> An engine block of exactly the model's block size maps to one local
 *       block. An engine block whose size is a multiple {@code k} of it is split into {@code k}
 *       local blocks (the engine hash then stands for all {@code k}; the index removes all of them
 *       when it is removed, instead of Dynamo's synthetic sub-block hashes). Any other size is
 *       rejected with a reason the index counts.
 *   <li><b>Gen-2</b> ({@link MmScheme#GEN2}): inside each engine block that carries mm_hashes, each
 *       contiguous run of the model's image token id is rewritten to {@link
 *       MmHashes#padValue(long)} of the block's objects in order; the object index advances at the
 *       end of each run and clamps at the last object (exact when images are separated by text, as
 *       in Qwen-VL prompts). Tokens that already are pad values (SGLang) pass through unchanged.
 *   <li><b>Gen-1</b> ({@link MmScheme#GEN1}): the block's mm_hashes are appended to the hash input
 *       ({@link BlockHasher}). When an engine block is split, each sub-block gets the objects whose
 *       image-token runs it overlaps (runs mapped to objects in order as above); without a known
 *       image token id every sub-block gets all of them.
 *   <li>{@link MmScheme#OFF}: mm_hashes are ignored (text-only routing).
 * </ul>
 *
 * <p>The LoRA name and cache salt of the event select the {@link BlockHasher} seed. Thread-safe.
 */
public final class StoredBlockConverter {

  /** Outcome of a conversion: local hashes, or why the event was rejected. */
  public sealed interface Result permits Converted, Rejected {}

  /**
   * @param localHashes one hash per local block, {@code engineBlocks * span} of them
   * @param span local blocks per engine block (1 unless engine blocks are split)
   */
  public record Converted(long[] localHashes, int span) implements Result {}

  /**
   * @param reason a short, stable reason key (used as a counter name)
   * @param detail a human-readable explanation
   */
  public record Rejected(String reason, String detail) implements Result {}

  public static final String REJECT_BLOCK_SIZE = "block_size_mismatch";
  public static final String REJECT_TOKEN_COUNT = "token_count_mismatch";
  public static final String REJECT_NO_IMAGE_TOKEN = "no_image_token_id";

  private final int blockSize;
  private final MmScheme scheme;
  private final int imageTokenId;
  private final ConcurrentHashMap<String, BlockHasher> hashers = new ConcurrentHashMap<>();

  /**
   * @param blockSize the model's KV block size in tokens (as the request side hashes)
   * @param scheme the model's multimodal scheme
   * @param imageTokenId the model's image placeholder token id, or -1 when unknown (Gen-2 then
   *     rejects events that carry mm_hashes rather than hashing them image-blind)
   */
  public StoredBlockConverter(int blockSize, MmScheme scheme, int imageTokenId) {
    if (blockSize <= 0) {
      throw new IllegalArgumentException("blockSize must be > 0, was " + blockSize);
    }
    this.blockSize = blockSize;
    this.scheme = Objects.requireNonNull(scheme, "scheme");
    this.imageTokenId = imageTokenId;
  }

  /** A text-only converter ({@link MmScheme#OFF}). */
  public static StoredBlockConverter textOnly(int blockSize) {
    return new StoredBlockConverter(blockSize, MmScheme.OFF, -1);
  }

  public int blockSize() {
    return blockSize;
  }

  public MmScheme scheme() {
    return scheme;
  }

  /** The hasher for a LoRA name and cache salt (cached). */
  public BlockHasher hasher(String loraName, String cacheSalt) {
    String key =
        (loraName == null ? "" : loraName) + '\u0000' + (cacheSalt == null ? "" : cacheSalt);
    return hashers.computeIfAbsent(key, k -> BlockHasher.of(blockSize, loraName, cacheSalt));
  }

  /** Converts the event's blocks; never throws for bad input, returns {@link Rejected} instead. */
  public Result convert(KvEvent.Stored event) {
    int engineBlocks = event.blockHashes().length;
    int engineBlockSize = event.blockSize();
    if (engineBlockSize % blockSize != 0) {
      return new Rejected(
          REJECT_BLOCK_SIZE,
          "engine block size "
              + engineBlockSize
              + " is not a multiple of the model block size "
              + blockSize);
    }
    if ((long) engineBlocks * engineBlockSize != event.tokenIds().length) {
      return new Rejected(
          REJECT_TOKEN_COUNT,
          event.tokenIds().length
              + " tokens for "
              + engineBlocks
              + " blocks of "
              + engineBlockSize);
    }
    int span = engineBlockSize / blockSize;
    boolean mm = scheme != MmScheme.OFF && event.hasMultimodal();
    if (mm && scheme == MmScheme.GEN2 && imageTokenId < 0) {
      return new Rejected(
          REJECT_NO_IMAGE_TOKEN, "Gen-2 needs the model's image token id to rewrite image runs");
    }
    BlockHasher hasher = hasher(event.loraName(), event.cacheSalt());
    int[] tokens = event.tokenIds();
    List<long[]> perLocalBlockMm = null;
    if (mm && scheme == MmScheme.GEN2) {
      tokens = tokens.clone();
      for (int b = 0; b < engineBlocks; b++) {
        long[] objects = event.mmHashesOfBlock(b);
        if (objects.length > 0) {
          rewriteRuns(tokens, b * engineBlockSize, engineBlockSize, objects);
        }
      }
    } else if (mm && scheme == MmScheme.GEN1) {
      perLocalBlockMm = new ArrayList<>(engineBlocks * span);
      for (int b = 0; b < engineBlocks; b++) {
        long[] objects = event.mmHashesOfBlock(b);
        if (span == 1 || objects.length == 0 || imageTokenId < 0) {
          for (int s = 0; s < span; s++) {
            perLocalBlockMm.add(objects);
          }
        } else {
          perLocalBlockMm.addAll(splitObjects(tokens, b * engineBlockSize, span, objects));
        }
      }
    }
    return new Converted(hasher.localHashes(tokens, tokens.length, perLocalBlockMm), span);
  }

  // Gen-2: each run of the image token becomes pad(objects[k]); k advances per run, clamped.
  private void rewriteRuns(int[] tokens, int start, int length, long[] objects) {
    int k = 0;
    int i = start;
    int end = start + length;
    while (i < end) {
      if (tokens[i] != imageTokenId) {
        i++;
        continue;
      }
      int pad = MmHashes.padValue(objects[Math.min(k, objects.length - 1)]);
      while (i < end && tokens[i] == imageTokenId) {
        tokens[i++] = pad;
      }
      k++;
    }
  }

  // Gen-1 split: which objects' runs overlap each of the span sub-blocks of one engine block.
  private List<long[]> splitObjects(int[] tokens, int start, int span, long[] objects) {
    List<long[]> out = new ArrayList<>(span);
    int k = -1;
    boolean inRun = false;
    for (int s = 0; s < span; s++) {
      long[] acc = new long[objects.length];
      int n = 0;
      int lastAdded = -1;
      int from = start + s * blockSize;
      if (inRun) {
        // a run continuing from the previous sub-block belongs to the same object
        acc[n++] = objects[Math.min(k, objects.length - 1)];
        lastAdded = k;
      }
      for (int i = from; i < from + blockSize; i++) {
        boolean image = tokens[i] == imageTokenId;
        if (image && !inRun) {
          k++;
          if (k != lastAdded && n < acc.length) {
            int idx = Math.min(k, objects.length - 1);
            if (lastAdded < 0 || Math.min(lastAdded, objects.length - 1) != idx) {
              acc[n++] = objects[idx];
            }
            lastAdded = k;
          }
        }
        inRun = image;
      }
      out.add(Arrays.copyOf(acc, n));
    }
    return out;
  }
}
