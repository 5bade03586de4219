package io.sightline.router.ingest;

import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Publishes a bridge's messages, retrying while the plane is unavailable: a message carries events
 * already consumed from the engine (vLLM SUB, destructive TRT-LLM reads), so dropping it would
 * leave every replica silently stale. The bridge thread blocks meanwhile; the engine side buffers
 * (ZMQ high-water mark, TRT-LLM's event queue) and any overflow shows up as a sequence gap later.
 */
final class PlanePublisher {
  private static final Logger LOG = Logger.getLogger(PlanePublisher.class.getName());

  private final KvEventBus bus;
  private final IngestMetrics metrics;
  private final String dialect;

  PlanePublisher(KvEventBus bus, IngestMetrics metrics, String dialect) {
    this.bus = bus;
    this.metrics = metrics;
    this.dialect = dialect;
  }

  /** Returns false only when {@code running} turned false before the plane accepted it. */
  boolean publish(EventBatchMessage message, BooleanSupplier running) {
    long backoffMs = 50;
    while (true) {
      try {
        bus.publish(message);
        metrics.published(dialect);
        return true;
      } catch (EventPlaneException e) {
        metrics.planeError();
        LOG.log(
            Level.WARNING,
            "event plane publish for {0} failed, retrying: {1}",
            new Object[] {message.workerId(), e.getMessage()});
      }
      if (!running.getAsBoolean()) {
        return false;
      }
      try {
        Thread.sleep(backoffMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      backoffMs = Math.min(2000, backoffMs * 2);
    }
  }
}
