package io.sightline.adapter.trtllm;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import io.sightline.routing.multimodal.MmHashes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Turns polled TensorRT-LLM events of one worker into normalised {@link KvEvent}s. Stateful (one
 * instance per worker, used by one poller thread): it tracks, per attention-DP rank, the next
 * expected {@code event_id}, the largest attention window and the hashes of partial blocks.
 *
 * <p>Rules, after Dynamo's TRT-LLM publisher ({@code ../shared/reference/trtllm.md} §2 "Dynamo
 * conversion", "Gateway implications"):
 *
 * <ul>
 *   <li><b>Gaps.</b> Reads are destructive, so nothing can be replayed: an {@code event_id} gap
 *       emits a {@link KvEvent.Cleared} for the rank at that point (counted as a gap), and the
 *       index rebuilds from the events that follow.
 *   <li><b>Restarts.</b> A {@code created} event with id 0, or ids going backwards, is a new engine
 *       lifetime with an empty cache: {@link KvEvent.Cleared}.
 *   <li><b>Windows.</b> VSWA models emit per {@code window_size}; only the largest window (from the
 *       {@code created} events, or the largest seen) is kept.
 *   <li><b>Partial blocks.</b> TRT-LLM emits blocks with fewer tokens than a block; the first such
 *       block ends the stored run (the full blocks before it are kept), its hash is remembered, and
 *       a later removal of it is skipped. A block with more tokens than {@code tokensPerBlock}
 *       drops the whole event.
 *   <li><b>MM keys.</b> Each block's {@code mm_keys} become mm_hashes via {@link
 *       MmHashes#fromIdentifier} of the caller's uuid when present, else of {@code hash} (the uuid
 *       string itself in V1 when one was given, else a 64-hex digest → first 16 hex digits).
 *   <li>{@code updated} (cache-level/priority changes) are ignored: an offloaded block stays
 *       reusable. V2 events whose tokens are digest strings are rejected.
 * </ul>
 */
public final class TrtEventNormalizer {

  /** Normalised output of one poll. */
  public record Result(
      List<KvEvent> events, List<String> rejections, List<Gap> gaps, int restarts, int ignored) {
    public Result {
      events = List.copyOf(events);
      rejections = List.copyOf(rejections);
      gaps = List.copyOf(gaps);
    }
  }

  /** A hole in one rank's {@code event_id}s. */
  public record Gap(int dpRank, long expected, long received) {}

  private static final class RankState {
    long nextEventId = -1;
    int maxWindow;
    final Set<Long> partials = new HashSet<>();
  }

  private final String workerId;
  private final int tokensPerBlock;
  private final Map<Integer, RankState> ranks = new HashMap<>();

  public TrtEventNormalizer(String workerId, int tokensPerBlock) {
    if (workerId == null || workerId.isEmpty()) {
      throw new IllegalArgumentException("workerId must be non-empty");
    }
    if (tokensPerBlock <= 0) {
      throw new IllegalArgumentException("tokensPerBlock must be > 0");
    }
    this.workerId = workerId;
    this.tokensPerBlock = tokensPerBlock;
  }

  /**
   * Resumes a rank after {@code lastEventId} (e.g. the last event the event plane holds, when this
   * router takes over a worker from another): the next event must be {@code lastEventId + 1}.
   */
  public void resumeAfter(int dpRank, long lastEventId) {
    ranks.computeIfAbsent(dpRank, r -> new RankState()).nextEventId = lastEventId + 1;
  }

  /** The last event id seen on a rank, or -1. */
  public long lastEventId(int dpRank) {
    RankState s = ranks.get(dpRank);
    return s == null ? -1 : s.nextEventId - 1;
  }

  public Result normalize(List<TrtKvEvent> polled) {
    List<KvEvent> out = new ArrayList<>();
    List<String> rejected = new ArrayList<>();
    List<Gap> gaps = new ArrayList<>();
    int restarts = 0;
    int ignored = 0;
    for (TrtKvEvent e : polled) {
      int rank = Math.max(0, e.dpRank());
      RankState s = ranks.computeIfAbsent(rank, r -> new RankState());
      long id = e.eventId();
      boolean created = e.data() instanceof TrtKvEvent.Created;
      if (s.nextEventId >= 0 && (id < s.nextEventId || (created && id == 0 && s.nextEventId > 0))) {
        restarts++;
        s.partials.clear();
        s.maxWindow = 0;
        out.add(new KvEvent.Cleared(workerId, rank, id));
      } else if (s.nextEventId >= 0 && id > s.nextEventId) {
        gaps.add(new Gap(rank, s.nextEventId, id));
        s.partials.clear();
        out.add(new KvEvent.Cleared(workerId, rank, id));
      }
      s.nextEventId = id + 1;
      if (created) {
        s.maxWindow = Math.max(s.maxWindow, e.windowSize());
        continue;
      }
      if (e.windowSize() > 0) {
        if (e.windowSize() < s.maxWindow) {
          ignored++; // a smaller attention window of a VSWA model
          continue;
        }
        s.maxWindow = e.windowSize();
      }
      switch (e.data()) {
        case TrtKvEvent.Stored st -> stored(st, rank, id, s, out, rejected);
        case TrtKvEvent.Removed r -> {
          long[] keep = new long[r.blockHashes().length];
          int n = 0;
          for (long h : r.blockHashes()) {
            if (!s.partials.remove(h)) {
              keep[n++] = h;
            }
          }
          if (n > 0) {
            out.add(
                new KvEvent.Removed(
                    workerId, rank, id, StorageTier.DEVICE, java.util.Arrays.copyOf(keep, n)));
          }
        }
        case TrtKvEvent.Updated u -> ignored++;
        case TrtKvEvent.Unknown u -> rejected.add("unknown event type '" + u.type() + "'");
        case TrtKvEvent.Created c -> {}
      }
    }
    return new Result(out, rejected, gaps, restarts, ignored);
  }

  private void stored(
      TrtKvEvent.Stored st,
      int rank,
      long id,
      RankState s,
      List<KvEvent> out,
      List<String> rejected) {
    List<TrtKvEvent.Block> full = new ArrayList<>(st.blocks().size());
    for (TrtKvEvent.Block b : st.blocks()) {
      if (b.digestTokens()) {
        rejected.add("stored event " + id + " has V2 digest tokens");
        return;
      }
      if (b.tokenIds().length > tokensPerBlock) {
        rejected.add(
            "stored event "
                + id
                + " has a block of "
                + b.tokenIds().length
                + " tokens > "
                + tokensPerBlock);
        return;
      }
      if (b.tokenIds().length < tokensPerBlock) {
        s.partials.add(b.hash());
        break;
      }
      full.add(b);
    }
    if (full.isEmpty()) {
      return;
    }
    long[] hashes = new long[full.size()];
    int[] tokens = new int[full.size() * tokensPerBlock];
    List<long[]> mm = new ArrayList<>(full.size());
    boolean anyMm = false;
    String salt = null;
    for (int i = 0; i < full.size(); i++) {
      TrtKvEvent.Block b = full.get(i);
      hashes[i] = b.hash();
      System.arraycopy(b.tokenIds(), 0, tokens, i * tokensPerBlock, tokensPerBlock);
      long[] keys = new long[b.mmKeys().size()];
      int n = 0;
      for (TrtKvEvent.MmKey k : b.mmKeys()) {
        OptionalLong h = MmHashes.fromIdentifier(k.identifier());
        if (h.isPresent()) {
          keys[n++] = h.getAsLong();
        }
      }
      anyMm |= n > 0;
      mm.add(n == keys.length ? keys : java.util.Arrays.copyOf(keys, n));
      if (salt == null) {
        salt = b.cacheSalt();
      }
    }
    StorageTier tier = full.get(0).cacheLevel() == 0 ? StorageTier.DEVICE : StorageTier.HOST;
    out.add(
        new KvEvent.Stored(
            workerId,
            rank,
            id,
            tier,
            hashes,
            st.parentHash(),
            tokens,
            tokensPerBlock,
            anyMm ? mm : List.of(),
            null,
            salt));
  }
}
