package io.sightline.routing.selection;

import io.sightline.routing.index.WorkerKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * In-process load bookkeeping (Dynamo's router-side {@code ActiveSequences}, simplified): {@link
 * #book} adds a routed request's uncached prompt tokens (prefill) and its blocks (decode) to the
 * chosen worker; {@link #markPrefillDone} drops the prefill part once the first token arrives;
 * {@link #release} removes the rest. A booking whose release never comes expires after its TTL, so
 * nothing leaks: expired bookings are swept on every {@code book} (at most once a second) and by
 * {@link #expire()}.
 *
 * <p>Thread-safe: each booking is removed exactly once (map removal), and per-worker totals are
 * atomics, so reads never block.
 */
public final class LoadTracker implements LoadSource {

  /** One booked request. */
  public record Booking(
      String requestId,
      WorkerKey worker,
      long prefillTokens,
      long blocks,
      long predictedCachedTokens,
      long expiresAtNanos) {}

  /**
   * What a release found.
   *
   * @param booking the booking that was released
   * @param actualCachedTokens the engine's reported cached prompt tokens, if known
   */
  public record Released(Booking booking, Integer actualCachedTokens) {}

  private static final class Totals {
    final AtomicLong prefill = new AtomicLong();
    final AtomicLong blocks = new AtomicLong();
    final AtomicLong requests = new AtomicLong();
  }

  private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;

  /** A booking and whether its prefill was already subtracted; the flag is guarded by this. */
  private static final class Active {
    final Booking booking;
    boolean prefillDone;

    Active(Booking booking) {
      this.booking = booking;
    }
  }

  private final ConcurrentHashMap<String, Active> bookings = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<WorkerKey, Totals> totals = new ConcurrentHashMap<>();
  private final LongSupplier nanoClock;
  private final AtomicLong lastSweep = new AtomicLong();
  private final LongAdder expired = new LongAdder();
  private final LongAdder predictedCached = new LongAdder();
  private final LongAdder actualCached = new LongAdder();
  private final LongAdder releasesWithActual = new LongAdder();

  public LoadTracker() {
    this(System::nanoTime);
  }

  public LoadTracker(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    this.lastSweep.set(nanoClock.getAsLong());
  }

  @Override
  public WorkerLoad load(WorkerKey worker) {
    Totals t = totals.get(worker);
    return t == null
        ? WorkerLoad.IDLE
        : new WorkerLoad(t.prefill.get(), t.blocks.get(), t.requests.get());
  }

  /**
   * Books a routed request on {@code worker}. A second booking under the same id replaces the
   * first.
   */
  public Booking book(
      String requestId,
      WorkerKey worker,
      long prefillTokens,
      long blocks,
      long predictedCachedTokens,
      long ttlNanos) {
    long now = nanoClock.getAsLong();
    maybeSweep(now);
    Booking b =
        new Booking(
            requestId,
            worker,
            Math.max(0, prefillTokens),
            Math.max(0, blocks),
            predictedCachedTokens,
            now + ttlNanos);
    Active old = bookings.put(requestId, new Active(b));
    if (old != null) {
      unbook(old);
    }
    Totals t = totals.computeIfAbsent(worker, k -> new Totals());
    t.prefill.addAndGet(b.prefillTokens);
    t.blocks.addAndGet(b.blocks);
    t.requests.incrementAndGet();
    return b;
  }

  /** The prompt was prefilled (first token seen): its prefill tokens stop counting. */
  public boolean markPrefillDone(String requestId) {
    Active a = bookings.get(requestId);
    if (a == null) {
      return false;
    }
    // under the booking's monitor, like unbook(): a racing release either sees the mark (and
    // does not subtract the prefill again) or has already removed the booking (checked here)
    synchronized (a) {
      if (bookings.get(requestId) != a || a.prefillDone) {
        return false;
      }
      a.prefillDone = true;
      totals.get(a.booking.worker).prefill.addAndGet(-a.booking.prefillTokens);
      return true;
    }
  }

  /**
   * Ends a request. {@code actualCachedTokens} (the engine's {@code cached_tokens}, when known) is
   * recorded against the prediction. Empty when the id is unknown (already released or expired).
   */
  public Optional<Released> release(String requestId, Integer actualCachedTokens) {
    Active a = bookings.remove(requestId);
    if (a == null) {
      return Optional.empty();
    }
    unbook(a);
    Booking b = a.booking;
    if (actualCachedTokens != null) {
      releasesWithActual.increment();
      predictedCached.add(b.predictedCachedTokens);
      actualCached.add(actualCachedTokens);
    }
    return Optional.of(new Released(b, actualCachedTokens));
  }

  /** Drops bookings past their TTL; returns how many. */
  public int expire() {
    long now = nanoClock.getAsLong();
    lastSweep.set(now);
    return sweep(now);
  }

  private void maybeSweep(long now) {
    long last = lastSweep.get();
    if (now - last >= SWEEP_INTERVAL_NANOS && lastSweep.compareAndSet(last, now)) {
      sweep(now);
    }
  }

  private int sweep(long now) {
    List<Active> dead = new ArrayList<>();
    for (Active a : bookings.values()) {
      if (now - a.booking.expiresAtNanos >= 0) {
        dead.add(a);
      }
    }
    int n = 0;
    for (Active a : dead) {
      if (bookings.remove(a.booking.requestId, a)) {
        unbook(a);
        expired.increment();
        n++;
      }
    }
    return n;
  }

  // Called once per booking, after it left the map.
  private void unbook(Active a) {
    Booking b = a.booking;
    Totals t = totals.get(b.worker);
    synchronized (a) {
      if (!a.prefillDone) {
        a.prefillDone = true;
        t.prefill.addAndGet(-b.prefillTokens);
      }
    }
    t.blocks.addAndGet(-b.blocks);
    t.requests.decrementAndGet();
  }

  /** Bookings currently active. */
  public int activeBookings() {
    return bookings.size();
  }

  /**
   * Counters: expired bookings, and predicted vs actual cached tokens over releases that had one.
   */
  public Stats stats() {
    return new Stats(
        bookings.size(),
        expired.sum(),
        releasesWithActual.sum(),
        predictedCached.sum(),
        actualCached.sum());
  }

  /**
   * @param active active bookings
   * @param expired bookings dropped by TTL (release never came)
   * @param releasesWithCachedTokens releases that reported the engine's cached tokens
   * @param predictedCachedTokens Σ predicted cached tokens over those releases
   * @param actualCachedTokens Σ reported cached tokens over those releases
   */
  public record Stats(
      int active,
      long expired,
      long releasesWithCachedTokens,
      long predictedCachedTokens,
      long actualCachedTokens) {}
}
