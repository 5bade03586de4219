package io.sightline.router.state;

import java.util.Map;

/**
 * In-flight load per worker, shared by every router replica so that two gateways do not pile onto
 * the same worker.
 *
 * <p>Each replica books its own decisions locally ({@link #book}/{@link #release}: no I/O on the
 * routing path) and {@link #sync()} — called periodically — publishes this replica's per-worker
 * totals under a per-replica key with a TTL and fetches the other live replicas' totals. A replica
 * that dies stops refreshing its key, so its load disappears after the TTL. {@link #totals()} is
 * own live bookings + the others' last fetched totals. Bookings older than the configured maximum
 * age (a caller that never released) are dropped on sync.
 */
public interface SharedLoad extends AutoCloseable {

  /** Books {@code blocks} of load on {@code worker} for {@code routingId}. */
  void book(String routingId, WorkerKey worker, long blocks);

  /** Ends a booking; returns the worker it was on, or {@code null} for an unknown id. */
  WorkerKey release(String routingId);

  /** Load per worker over all live replicas (this one's live view + the others' last sync). */
  Map<WorkerKey, WorkerLoad> totals();

  /** This replica's own bookings per worker. */
  Map<WorkerKey, WorkerLoad> local();

  /** Publishes this replica's totals and fetches the other replicas'. */
  void sync();

  /** Stops publishing; a clean shutdown removes this replica's key at once. */
  @Override
  void close();
}
