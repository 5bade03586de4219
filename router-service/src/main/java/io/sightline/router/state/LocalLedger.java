package io.sightline.router.state;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * This replica's own bookings: routing id → (worker, blocks, booked-at). Lock-free on the routing
 * path; per-worker totals are computed on demand (the number of in-flight requests per replica is
 * small, thousands at most). Bookings older than {@code maxAgeMillis} are purged by {@link
 * #purgeOlderThanMaxAge()} so a client that never calls release cannot leak load forever.
 */
final class LocalLedger {
  private record Booking(WorkerKey worker, long blocks, long atMillis) {}

  private final ConcurrentHashMap<String, Booking> bookings = new ConcurrentHashMap<>();
  private final long maxAgeMillis;
  private final LongSupplier clock;

  LocalLedger(long maxAgeMillis, LongSupplier clock) {
    this.maxAgeMillis = maxAgeMillis;
    this.clock = clock;
  }

  void book(String routingId, WorkerKey worker, long blocks) {
    bookings.put(routingId, new Booking(worker, Math.max(0, blocks), clock.getAsLong()));
  }

  WorkerKey release(String routingId) {
    Booking b = bookings.remove(routingId);
    return b == null ? null : b.worker();
  }

  Map<WorkerKey, WorkerLoad> totals() {
    Map<WorkerKey, WorkerLoad> out = new HashMap<>();
    for (Booking b : bookings.values()) {
      out.merge(b.worker(), new WorkerLoad(1, b.blocks()), WorkerLoad::plus);
    }
    return out;
  }

  int purgeOlderThanMaxAge() {
    long cutoff = clock.getAsLong() - maxAgeMillis;
    int before = bookings.size();
    bookings.values().removeIf(b -> b.atMillis() < cutoff);
    return before - bookings.size();
  }

  static Map<WorkerKey, WorkerLoad> merge(
      Map<WorkerKey, WorkerLoad> a, Map<WorkerKey, WorkerLoad> b) {
    Map<WorkerKey, WorkerLoad> out = new HashMap<>(a);
    b.forEach((k, v) -> out.merge(k, v, WorkerLoad::plus));
    return out;
  }
}
