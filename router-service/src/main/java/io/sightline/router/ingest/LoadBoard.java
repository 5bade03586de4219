package io.sightline.router.ingest;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The latest scraped load per worker rank, with staleness: a sample older than {@code staleAfter}
 * is reported by {@link #fresh} as absent, so selection falls back to the router's own in-flight
 * accounting instead of trusting a number from a worker that stopped answering (stale load is a
 * known cause of hot-spotting, {@code ../shared/reference/llmd.md} §8 item 5). Thread-safe.
 */
public final class LoadBoard {

  private final Map<String, ScrapedLoad> loads = new ConcurrentHashMap<>();
  private final long staleAfterNanos;
  private final LongSupplier clock;

  public LoadBoard(Duration staleAfter) {
    this(staleAfter, System::nanoTime);
  }

  public LoadBoard(Duration staleAfter, LongSupplier nanoClock) {
    this.staleAfterNanos = staleAfter.toNanos();
    this.clock = nanoClock;
  }

  void put(ScrapedLoad load) {
    loads.put(key(load.workerId(), load.dpRank()), load);
  }

  /** The newest sample whatever its age. */
  public Optional<ScrapedLoad> latest(String workerId, int dpRank) {
    return Optional.ofNullable(loads.get(key(workerId, dpRank)));
  }

  /** The newest sample if it is not stale. */
  public Optional<ScrapedLoad> fresh(String workerId, int dpRank) {
    ScrapedLoad l = loads.get(key(workerId, dpRank));
    return l == null || l.isStale(clock.getAsLong(), staleAfterNanos)
        ? Optional.empty()
        : Optional.of(l);
  }

  /** Whether a worker rank's load is stale (or was never scraped). */
  public boolean stale(String workerId, int dpRank) {
    return fresh(workerId, dpRank).isEmpty();
  }

  /** Number of known worker ranks whose newest sample is stale. */
  public int staleCount() {
    long now = clock.getAsLong();
    int n = 0;
    for (ScrapedLoad l : loads.values()) {
      if (l.isStale(now, staleAfterNanos)) {
        n++;
      }
    }
    return n;
  }

  /** Every sample (for the admin view). */
  public List<ScrapedLoad> all() {
    return List.copyOf(loads.values());
  }

  void removeWorker(String workerId) {
    loads.values().removeIf(l -> l.workerId().equals(workerId));
  }

  private static String key(String workerId, int dpRank) {
    return workerId + '\u0000' + dpRank;
  }
}
