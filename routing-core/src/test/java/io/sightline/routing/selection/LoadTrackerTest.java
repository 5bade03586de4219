package io.sightline.routing.selection;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.routing.index.WorkerKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoadTrackerTest {
  private final AtomicLong nanos = new AtomicLong();
  private final LoadTracker tracker = new LoadTracker(nanos::get);
  private final WorkerKey w = new WorkerKey("w", 0);

  @Test
  void prefillDoneThenReleaseSubtractsEverythingOnce() {
    tracker.book("r", w, 100, 7, 32, 1_000_000_000L);
    assertThat(tracker.load(w)).isEqualTo(new WorkerLoad(100, 7, 1));
    assertThat(tracker.markPrefillDone("r")).isTrue();
    assertThat(tracker.markPrefillDone("r")).isFalse();
    assertThat(tracker.load(w)).isEqualTo(new WorkerLoad(0, 7, 1));
    var released = tracker.release("r", 48);
    assertThat(released).isPresent();
    assertThat(released.get().booking().predictedCachedTokens()).isEqualTo(32);
    assertThat(tracker.load(w)).isEqualTo(WorkerLoad.IDLE);
    assertThat(tracker.markPrefillDone("r")).isFalse();
    assertThat(tracker.stats().predictedCachedTokens()).isEqualTo(32);
    assertThat(tracker.stats().actualCachedTokens()).isEqualTo(48);
  }

  @Test
  void rebookingAnIdReplacesTheOldBooking() {
    tracker.book("r", w, 10, 1, 0, 1_000_000_000L);
    tracker.book("r", new WorkerKey("x", 0), 20, 2, 0, 1_000_000_000L);
    assertThat(tracker.load(w)).isEqualTo(WorkerLoad.IDLE);
    assertThat(tracker.activeBookings()).isEqualTo(1);
  }

  @Test
  void bookingsAreSweptLazilyOnLaterBookings() {
    tracker.book("old", w, 10, 1, 0, 500_000_000L);
    nanos.addAndGet(2_000_000_000L);
    tracker.book("new", w, 5, 1, 0, 5_000_000_000L);
    assertThat(tracker.load(w)).isEqualTo(new WorkerLoad(5, 1, 1));
    assertThat(tracker.stats().expired()).isEqualTo(1);
    assertThat(tracker.release("old", null)).isEmpty();
  }

  @Test
  void racingMarksReleasesAndExpiryNeverDoubleCount() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> fs = new ArrayList<>();
    int n = 20_000;
    fs.add(
        pool.submit(
            () -> {
              start.await();
              for (int i = 0; i < n; i++) {
                tracker.book("r" + i, w, 16, 2, 0, i % 3 == 0 ? 0 : 60_000_000_000L);
              }
              return null;
            }));
    for (int t = 0; t < 2; t++) {
      fs.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < n; i++) {
                  tracker.markPrefillDone("r" + i);
                  tracker.release("r" + i, i % 2 == 0 ? 16 : null);
                }
                return null;
              }));
    }
    fs.add(
        pool.submit(
            () -> {
              start.await();
              for (int i = 0; i < 200; i++) {
                nanos.addAndGet(1_000_000L);
                tracker.expire();
              }
              return null;
            }));
    start.countDown();
    for (Future<?> f : fs) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    for (int i = 0; i < n; i++) {
      tracker.release("r" + i, null);
    }
    assertThat(tracker.activeBookings()).isZero();
    assertThat(tracker.load(w)).isEqualTo(WorkerLoad.IDLE);
  }
}
