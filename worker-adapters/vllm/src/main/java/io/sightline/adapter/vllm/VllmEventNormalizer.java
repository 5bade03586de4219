package io.sightline.adapter.vllm;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import io.sightline.routing.multimodal.MmHashes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Turns a decoded vLLM batch into normalised {@link KvEvent}s for one worker, applying the rules
 * Dynamo's {@code convert_event} and llm-d's pool apply ({@code ../shared/reference/dynamo.md}
 * §2.2, {@code llmd.md} §1, 3):
 *
 * <ul>
 *   <li>Only KV group 0 / full-attention specs are kept: hybrid and sliding-window groups would
 *       create false prefix residency ({@code llmd.md} §8 item 3).
 *   <li>{@code extra_keys} items become per-block mm_hashes through {@link
 *       MmHashes#fromIdentifier}; tuples {@code (identifier, offset)} are always media, bare
 *       strings are media unless they are the event's LoRA name or cache salt (vLLM composes LoRA
 *       name, MM items, cache_salt and prompt-embeds digests into the same list). Offsets are
 *       dropped, as llm-d and Dynamo do.
 *   <li>A store whose token count is not {@code blocks × block_size} (Eagle: plus one, dropped) is
 *       rejected, as is one with a duplicate hash (Dynamo turns those into a no-op). Tokenless
 *       stores (offload tier updates) are rejected too: the normalised model needs tokens.
 *   <li>{@code medium} maps to a {@link StorageTier}; the batch's {@code data_parallel_rank} wins
 *       over the rank configured for the endpoint.
 * </ul>
 *
 * Rejections are reported, never thrown, so the caller can count them.
 */
public final class VllmEventNormalizer {

  /** Normalised events of one batch plus the reasons for any dropped ones. */
  public record Result(List<KvEvent> events, List<String> rejections) {
    public Result {
      events = List.copyOf(events);
      rejections = List.copyOf(rejections);
    }
  }

  private final String workerId;
  private final int defaultDpRank;

  public VllmEventNormalizer(String workerId, int defaultDpRank) {
    if (workerId == null || workerId.isEmpty()) {
      throw new IllegalArgumentException("workerId must be non-empty");
    }
    this.workerId = workerId;
    this.defaultDpRank = Math.max(0, defaultDpRank);
  }

  public String workerId() {
    return workerId;
  }

  /** Normalises one batch published with sequence number {@code seq}. */
  public Result normalize(VllmEventBatch batch, long seq) {
    int rank =
        batch.dpRank() == null || batch.dpRank() < 0 ? defaultDpRank : batch.dpRank().intValue();
    List<KvEvent> out = new ArrayList<>(batch.events().size());
    List<String> rejected = new ArrayList<>();
    if (batch.skippedUnknown() > 0) {
      rejected.add(batch.skippedUnknown() + " event(s) of unknown type");
    }
    for (VllmKvEvent e : batch.events()) {
      switch (e) {
        case VllmKvEvent.BlockStored s -> {
          String why = storedRejection(s);
          if (why != null) {
            rejected.add(why);
          } else {
            out.add(toStored(s, rank, seq));
          }
        }
        case VllmKvEvent.BlockRemoved r -> {
          if (r.groupIdx() != null && r.groupIdx() != 0) {
            rejected.add("BlockRemoved of KV group " + r.groupIdx());
          } else {
            out.add(
                new KvEvent.Removed(
                    workerId, rank, seq, StorageTier.fromMedium(r.medium()), r.blockHashes()));
          }
        }
        case VllmKvEvent.AllBlocksCleared c -> out.add(new KvEvent.Cleared(workerId, rank, seq));
      }
    }
    return new Result(out, rejected);
  }

  private static String storedRejection(VllmKvEvent.BlockStored s) {
    if (s.groupIdx() != null && s.groupIdx() != 0) {
      return "BlockStored of KV group " + s.groupIdx();
    }
    if (!isFullAttention(s.kvCacheSpecKind())) {
      return "BlockStored of spec kind " + s.kvCacheSpecKind();
    }
    int blocks = s.blockHashes().length;
    if (blocks == 0) {
      return "BlockStored without blocks";
    }
    if (s.blockSize() <= 0) {
      return "BlockStored with block_size " + s.blockSize();
    }
    if (s.tokenIds().length == 0) {
      return "tokenless BlockStored (tier update)";
    }
    long expected = (long) blocks * s.blockSize();
    long got = s.tokenIds().length - (s.eagle() ? 1 : 0);
    if (got != expected) {
      return "BlockStored has " + got + " tokens for " + blocks + "x" + s.blockSize();
    }
    if (!s.extraKeys().isEmpty() && s.extraKeys().size() != blocks) {
      return "BlockStored has " + s.extraKeys().size() + " extra_keys entries for " + blocks;
    }
    Set<Long> seen = new HashSet<>();
    if (s.parentHash() != null) {
      seen.add(s.parentHash());
    }
    for (long h : s.blockHashes()) {
      if (!seen.add(h)) {
        return "BlockStored with duplicate hash " + Long.toUnsignedString(h);
      }
    }
    return null;
  }

  private static boolean isFullAttention(String kind) {
    if (kind == null || kind.isEmpty()) {
      return true;
    }
    String k = kind.toLowerCase(Locale.ROOT).replace("_", "");
    return k.equals("fullattention") || k.equals("fullattentionspec") || k.equals("full");
  }

  private KvEvent.Stored toStored(VllmKvEvent.BlockStored s, int rank, long seq) {
    int blocks = s.blockHashes().length;
    int[] tokens = s.tokenIds();
    if (s.eagle()) {
      tokens = java.util.Arrays.copyOf(tokens, tokens.length - 1);
    }
    List<long[]> mm = List.of();
    if (!s.extraKeys().isEmpty()) {
      List<long[]> perBlock = new ArrayList<>(blocks);
      boolean any = false;
      for (List<ExtraKey> keys : s.extraKeys()) {
        long[] hashes = mmHashes(keys, s.loraName(), s.cacheSalt());
        any |= hashes.length > 0;
        perBlock.add(hashes);
      }
      mm = any ? perBlock : List.of();
    }
    return new KvEvent.Stored(
        workerId,
        rank,
        seq,
        StorageTier.fromMedium(s.medium()),
        s.blockHashes(),
        s.parentHash(),
        tokens,
        s.blockSize(),
        mm,
        s.loraName(),
        s.cacheSalt());
  }

  private static long[] mmHashes(List<ExtraKey> keys, String loraName, String cacheSalt) {
    if (keys == null || keys.isEmpty()) {
      return new long[0];
    }
    long[] out = new long[keys.size()];
    int n = 0;
    for (ExtraKey k : keys) {
      boolean bare = k.blockRelativeOffset().isEmpty();
      if (bare && (k.identifier().equals(loraName) || k.identifier().equals(cacheSalt))) {
        continue;
      }
      OptionalLong h = MmHashes.fromIdentifier(k.identifier());
      if (h.isPresent()) {
        out[n++] = h.getAsLong();
      }
    }
    return n == out.length ? out : java.util.Arrays.copyOf(out, n);
  }
}
