package io.sightline.router.engine;

import io.sightline.router.model.ModelRuntimes;
import io.sightline.router.state.IndexSnapshot;
import io.sightline.router.state.Prediction;
import io.sightline.router.state.PredictionStore;
import io.sightline.router.state.SharedLoad;
import io.sightline.router.state.SnapshotStore;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The background half of the replicated state: every {@code syncInterval} it publishes this
 * replica's load and fetches the others' ({@link SharedLoad#sync}), applies the other replicas'
 * predictions to the local indexes, and refreshes index gauges; every {@code snapshotInterval} it
 * writes an index snapshot with the event-plane sequence it reflects. All I/O happens here, never
 * on the routing path; a Redis outage only makes the shared view age (logged once per outage,
 * counted), routing goes on with local state.
 */
public final class RouterStateLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RouterStateLoop.class);

  private final RouterEngine engine;
  private final ModelRuntimes runtimes;
  private final SharedLoad shared;
  private final PredictionStore predictions;
  private final SnapshotStore snapshots;
  private final RouterMetrics metrics;
  private final String replicaId;
  private final Duration syncInterval;
  private final Duration snapshotInterval;
  private final LongAdder syncFailures = new LongAdder();
  private final LongAdder snapshotsWritten = new LongAdder();
  private ScheduledExecutorService executor;
  private volatile boolean failing;
  private volatile long lastSnapshotSequence = -1;

  public RouterStateLoop(
      RouterEngine engine,
      ModelRuntimes runtimes,
      SharedLoad shared,
      PredictionStore predictions,
      SnapshotStore snapshots,
      RouterMetrics metrics,
      String replicaId,
      Duration syncInterval,
      Duration snapshotInterval) {
    this.engine = engine;
    this.runtimes = runtimes;
    this.shared = shared;
    this.predictions = predictions;
    this.snapshots = snapshots;
    this.metrics = metrics;
    this.replicaId = replicaId;
    this.syncInterval = syncInterval;
    this.snapshotInterval = snapshotInterval;
  }

  public synchronized void start() {
    if (executor != null) {
      return;
    }
    executor =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("sightline-router-state").factory());
    long sync = Math.max(10, syncInterval.toMillis());
    executor.scheduleWithFixedDelay(this::syncOnce, 0, sync, TimeUnit.MILLISECONDS);
    long snap = snapshotInterval.toMillis();
    if (snap > 0) {
      executor.scheduleWithFixedDelay(this::snapshotOnce, snap, snap, TimeUnit.MILLISECONDS);
    }
  }

  /** One sync round (also callable directly, e.g. from tests). */
  public void syncOnce() {
    try {
      shared.sync(engine.localLoad());
      long now = System.currentTimeMillis();
      for (Prediction p : predictions.pollOthers()) {
        engine.applyRemotePrediction(p, now);
      }
      metrics.indexGauges(runtimes);
      if (failing) {
        failing = false;
        log.info("router state sync recovered");
      }
    } catch (RuntimeException e) {
      syncFailures.increment();
      metrics.fallback("state_sync_failed");
      if (!failing) {
        failing = true;
        log.warn("router state sync failing (routing continues on local state): {}", e.toString());
      }
    }
  }

  /**
   * Writes a snapshot when the indexes reflect a newer event-plane position than the last one
   * written. Returns whether one was written.
   */
  public boolean snapshotOnce() {
    try {
      ModelRuntimes.Snapshot s = runtimes.snapshot();
      if (s.streamSequence() < 0 || s.streamSequence() == lastSnapshotSequence) {
        return false; // nothing positioned to resume from, or nothing new
      }
      snapshots.save(
          new IndexSnapshot(replicaId, s.streamSequence(), System.currentTimeMillis(), s.data()));
      lastSnapshotSequence = s.streamSequence();
      snapshotsWritten.increment();
      log.debug("index snapshot at stream seq {} ({} bytes)", s.streamSequence(), s.data().length);
      return true;
    } catch (Exception e) {
      metrics.fallback("snapshot_failed");
      log.warn("index snapshot failed: {}", e.toString());
      return false;
    }
  }

  public long syncFailures() {
    return syncFailures.sum();
  }

  public long snapshotsWritten() {
    return snapshotsWritten.sum();
  }

  @Override
  public synchronized void close() {
    if (executor != null) {
      executor.shutdownNow();
      executor = null;
    }
  }
}
