package io.sightline.router.state;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Predicted cache contents from routing decisions (this replica's and, via {@link PredictionStore},
 * the others'), expiring after a TTL. Keyed by chained sequence hash, so a lookup is one map probe
 * per block and only a matching prefix counts: the overlap of worker {@code w} is the number of
 * leading blocks {@code i} whose sequence hash is predicted on {@code w}. The router max-merges it
 * with the event-fed index (Dynamo's approximate mode and predicted side-index,
 * ../shared/reference/dynamo.md §3).
 */
public final class PredictionIndex {
  private final ConcurrentHashMap<Long, ConcurrentHashMap<WorkerKey, Long>> byHash =
      new ConcurrentHashMap<>();
  private final long maxEntries;
  private final java.util.concurrent.atomic.AtomicLong count =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * @param maxEntries bound on (hash, worker) entries; beyond it new predictions are dropped
   */
  public PredictionIndex(long maxEntries) {
    this.maxEntries = maxEntries;
  }

  /** Adds (or extends) the prediction's entries. Returns false when the index is full. */
  public boolean add(Prediction p) {
    if (entries() >= maxEntries) {
      return false;
    }
    for (int i = 0; i < p.blocks(); i++) {
      ConcurrentHashMap<WorkerKey, Long> holders =
          byHash.computeIfAbsent(p.sequenceHash(i), h -> new ConcurrentHashMap<>(2));
      Long prev = holders.putIfAbsent(p.worker(), p.expiresAtMillis());
      if (prev == null) {
        count.incrementAndGet();
      } else if (prev < p.expiresAtMillis()) {
        holders.merge(p.worker(), p.expiresAtMillis(), Math::max);
      }
    }
    return true;
  }

  /** Per worker, the number of leading blocks predicted on it (only workers with ≥ 1). */
  public Map<WorkerKey, Integer> overlaps(long[] sequenceHashes, long nowMillis) {
    Map<WorkerKey, Integer> depth = new HashMap<>();
    for (int i = 0; i < sequenceHashes.length; i++) {
      ConcurrentHashMap<WorkerKey, Long> holders = byHash.get(sequenceHashes[i]);
      if (holders == null) {
        break;
      }
      boolean any = false;
      for (Map.Entry<WorkerKey, Long> e : holders.entrySet()) {
        if (e.getValue() <= nowMillis) {
          continue;
        }
        // consecutive from block 0 only: depth must equal i to extend
        Integer d = depth.get(e.getKey());
        if ((d == null ? 0 : d) == i) {
          depth.put(e.getKey(), i + 1);
          any = true;
        }
      }
      if (!any) {
        break;
      }
    }
    return depth;
  }

  /** Drops expired entries; returns how many (hash, worker) entries were removed. */
  public int purgeExpired(long nowMillis) {
    int[] removed = {0};
    byHash
        .values()
        .removeIf(
            holders -> {
              int before = holders.size();
              holders.values().removeIf(exp -> exp <= nowMillis);
              removed[0] += before - holders.size();
              count.addAndGet(-(before - holders.size()));
              return holders.isEmpty();
            });
    return removed[0];
  }

  /** Forgets every prediction for {@code worker} (it left the fleet or cleared its cache). */
  public void removeWorker(WorkerKey worker) {
    byHash
        .values()
        .removeIf(
            holders -> {
              if (holders.remove(worker) != null) {
                count.decrementAndGet();
              }
              return holders.isEmpty();
            });
  }

  /** Current (hash, worker) entries, expired ones included until purged. */
  public long entries() {
    return count.get();
  }
}
