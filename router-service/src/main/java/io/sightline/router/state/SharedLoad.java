package io.sightline.router.state;

import io.sightline.routing.index.WorkerKey;
import io.sightline.routing.selection.WorkerLoad;
import java.util.Map;

/**
 * In-flight load per worker rank, shared by every router replica so that two gateways do not pile
 * onto the same worker.
 *
 * <p>Each replica books its own decisions in its local {@code LoadTracker} (no I/O on the routing
 * path). {@link #sync} — called periodically — publishes that replica's per-worker totals under a
 * per-replica key with a TTL and fetches the other live replicas' totals; the router's load source
 * is local + {@link #others()}. A replica that dies stops refreshing its key, so its load
 * disappears after the TTL; a clean {@link #close()} removes it at once.
 */
public interface SharedLoad extends AutoCloseable {

  /** Publishes this replica's current per-worker totals and fetches the other replicas'. */
  void sync(Map<WorkerKey, WorkerLoad> local);

  /** The other live replicas' load, summed per worker, as of the last {@link #sync}. */
  Map<WorkerKey, WorkerLoad> others();

  /** Stops publishing and removes this replica's published load. */
  @Override
  void close();

  /** The Redis/string form of a load: {@code prefillTokens:blocks:requests}. */
  static String encode(WorkerLoad l) {
    return l.activePrefillTokens() + ":" + l.activeBlocks() + ":" + l.activeRequests();
  }

  /** Inverse of {@link #encode}; {@code null} when malformed. */
  static WorkerLoad decode(String s) {
    if (s == null) {
      return null;
    }
    String[] p = s.split(":", -1);
    if (p.length != 3) {
      return null;
    }
    try {
      return new WorkerLoad(Long.parseLong(p[0]), Long.parseLong(p[1]), Long.parseLong(p[2]));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
