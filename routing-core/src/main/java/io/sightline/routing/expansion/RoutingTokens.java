package io.sightline.routing.expansion;

import io.sightline.routing.hashing.BlockHasher;
import io.sightline.routing.multimodal.MmHashes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The router-only expanded copy of a prompt's token ids (Dynamo's {@code build_mm_routing_info},
 * see {@code ../shared/reference/dynamo.md} §5 step 5 and §1.2–1.3).
 *
 * <p>The engine expands every image placeholder into as many tokens as the vision encoder produces,
 * and hashes its KV blocks over that expanded sequence. The router must see the same token
 * positions, so each placeholder in the prompt ids is replaced by that image's token count of fill
 * tokens: the placeholder id itself ({@link MmScheme#GEN1}, image identity then travels as
 * per-block mm_hashes appended to the block hash input) or Dynamo's pad value {@code 1_000_000 +
 * (mm_hash & (2^30-1))} ({@link MmScheme#GEN2}). The worker's request is never changed.
 *
 * <p>An {@link ImageSlot} made by {@link ImageSlot#forImage} carries the model's full replacement
 * sequence (embedding tokens plus wrappers such as Llama 4 tile separators or Pixtral row breaks);
 * it is copied verbatim under Gen-1, and under Gen-2 only its embedding positions take the pad
 * value. The image's span (Gen-1 per-block info) covers the whole replacement, as vLLM's
 * placeholder ranges do.
 *
 * <p>Rules kept from Dynamo: the number of placeholders must equal the number of images; an
 * optional BOS id is prepended; the expanded length is capped at {@value #MAX_ROUTING_TOKENS}.
 * Unlike Dynamo the sequence is not zero-padded to a block multiple: only full blocks are ever
 * hashed, so padding would add nothing but a block that no engine reports.
 *
 * <p>Instances are immutable.
 */
public final class RoutingTokens {
  /** Dynamo's {@code MAX_MM_ROUTING_TOKENS}. */
  public static final int MAX_ROUTING_TOKENS = 1_048_576;

  /** Where one image's fill tokens sit in the routing ids: {@code [start, end)}. */
  public record ImageSpan(int start, int end, long mmHash) {}

  private final int[] tokenIds;
  private final MmScheme scheme;
  private final List<ImageSpan> spans;

  private RoutingTokens(int[] tokenIds, MmScheme scheme, List<ImageSpan> spans) {
    this.tokenIds = tokenIds;
    this.scheme = scheme;
    this.spans = spans;
  }

  /**
   * Expands {@code promptIds}: every occurrence of {@code placeholderId} is replaced, in order, by
   * the fill tokens of the next image. With {@link MmScheme#OFF} the prompt is kept as is and the
   * images are ignored.
   *
   * @param bos a BOS id to prepend, or empty
   * @throws ExpansionException when placeholders and images disagree in number, a count is
   *     negative, or the result would exceed {@value #MAX_ROUTING_TOKENS} tokens
   */
  public static RoutingTokens expand(
      int[] promptIds, int placeholderId, List<ImageSlot> images, MmScheme scheme, OptionalInt bos)
      throws ExpansionException {
    Objects.requireNonNull(promptIds, "promptIds");
    Objects.requireNonNull(scheme, "scheme");
    List<ImageSlot> imgs = images == null ? List.of() : images;
    int head = bos != null && bos.isPresent() ? 1 : 0;
    if (scheme == MmScheme.OFF) {
      long len = (long) head + promptIds.length;
      checkCap(len);
      int[] out = new int[(int) len];
      if (head == 1) {
        out[0] = bos.getAsInt();
      }
      System.arraycopy(promptIds, 0, out, head, promptIds.length);
      return new RoutingTokens(out, scheme, List.of());
    }
    int placeholders = 0;
    for (int t : promptIds) {
      if (t == placeholderId) {
        placeholders++;
      }
    }
    if (placeholders != imgs.size()) {
      throw new ExpansionException(
          "prompt has "
              + placeholders
              + " image placeholder(s) (id "
              + placeholderId
              + ") but the request has "
              + imgs.size()
              + " image(s)");
    }
    long len = (long) head + promptIds.length - placeholders;
    for (int i = 0; i < imgs.size(); i++) {
      ImageSlot img = imgs.get(i);
      if (img == null) {
        throw new ExpansionException("image " + i + " is null");
      }
      if (img.numTokens() < 0) {
        throw new ExpansionException(
            "image " + i + " has a negative token count " + img.numTokens());
      }
      len += img.length();
    }
    checkCap(len);
    int[] out = new int[(int) len];
    List<ImageSpan> spans = new ArrayList<>(imgs.size());
    int pos = 0;
    if (head == 1) {
      out[pos++] = bos.getAsInt();
    }
    int next = 0;
    for (int t : promptIds) {
      if (t != placeholderId) {
        out[pos++] = t;
        continue;
      }
      ImageSlot img = imgs.get(next++);
      int n = img.length();
      if (img.replacement() == null) {
        int fill = scheme == MmScheme.GEN2 ? MmHashes.padValue(img.mmHash()) : placeholderId;
        Arrays.fill(out, pos, pos + n, fill);
      } else {
        System.arraycopy(img.replacement(), 0, out, pos, n);
        if (scheme == MmScheme.GEN2) {
          int pad = MmHashes.padValue(img.mmHash());
          for (int k = pos; k < pos + n; k++) {
            if (out[k] == img.embedTokenId()) {
              out[k] = pad;
            }
          }
        }
      }
      spans.add(new ImageSpan(pos, pos + n, img.mmHash()));
      pos += n;
    }
    return new RoutingTokens(out, scheme, Collections.unmodifiableList(spans));
  }

  /** Text-only routing tokens: the prompt ids as they are. */
  public static RoutingTokens textOnly(int[] promptIds) {
    return new RoutingTokens(promptIds.clone(), MmScheme.OFF, List.of());
  }

  private static void checkCap(long len) throws ExpansionException {
    if (len > MAX_ROUTING_TOKENS) {
      throw new ExpansionException(
          "expanded prompt has " + len + " tokens, over the cap of " + MAX_ROUTING_TOKENS);
    }
  }

  /** A copy of the routing token ids. */
  public int[] tokenIds() {
    return tokenIds.clone();
  }

  /** Number of routing tokens (the prefill weight of the request). */
  public int length() {
    return tokenIds.length;
  }

  public MmScheme scheme() {
    return scheme;
  }

  /** Image positions in the routing ids, in image order (empty for {@link MmScheme#OFF}). */
  public List<ImageSpan> imageSpans() {
    return spans;
  }

  /**
   * Gen-1 per-block multimodal info for blocks of {@code blockSize} tokens: entry {@code b} holds
   * the mm_hashes (ascending unsigned, one per distinct image) of the images overlapping block
   * {@code b}, or is null when none does. One entry per block including a trailing partial block
   * (Dynamo's {@code to_block_level}). Under Gen-2 and OFF the list is empty: blocks carry no mm
   * info.
   */
  public List<long[]> blockMmHashes(int blockSize) {
    if (blockSize <= 0) {
      throw new IllegalArgumentException("block size must be > 0, was " + blockSize);
    }
    if (scheme != MmScheme.GEN1 || spans.isEmpty()) {
      return List.of();
    }
    int blocks = (tokenIds.length + blockSize - 1) / blockSize;
    long[][] perBlock = new long[blocks][];
    for (ImageSpan s : spans) {
      if (s.end() <= s.start()) {
        continue;
      }
      for (int b = s.start() / blockSize; b <= (s.end() - 1) / blockSize; b++) {
        perBlock[b] = addDistinct(perBlock[b], s.mmHash());
      }
    }
    List<long[]> out = new ArrayList<>(blocks);
    for (long[] mm : perBlock) {
      if (mm != null) {
        sortUnsigned(mm);
      }
      out.add(mm);
    }
    return Collections.unmodifiableList(out);
  }

  /** Local block hashes of the routing ids (full blocks only), with Gen-1 mm info if any. */
  public long[] localHashes(BlockHasher hasher) {
    List<long[]> mm =
        scheme == MmScheme.GEN1 && !spans.isEmpty() && hasher.blockSize() > 0
            ? blockMmHashes(hasher.blockSize())
            : null;
    return hasher.localHashes(tokenIds, tokenIds.length, mm);
  }

  private static long[] addDistinct(long[] current, long h) {
    if (current == null) {
      return new long[] {h};
    }
    for (long v : current) {
      if (v == h) {
        return current;
      }
    }
    long[] grown = Arrays.copyOf(current, current.length + 1);
    grown[current.length] = h;
    return grown;
  }

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
