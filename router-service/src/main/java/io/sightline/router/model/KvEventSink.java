package io.sightline.router.model;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.index.ApplyOutcome;

/**
 * Where event ingestion (the in-process bus or the JetStream consumer, package {@code
 * io.sightline.router.ingest}) delivers normalised KV events. The router finds the worker's model
 * and applies the event to that model's index. Events of one (worker, rank) must be delivered in
 * order; different workers may be delivered concurrently.
 */
public interface KvEventSink {

  /**
   * Applies one event.
   *
   * @param event the normalised event
   * @param streamSequence the event plane's sequence of the message that carried it (JetStream
   *     stream sequence), or -1 on the in-process bus; snapshots record the highest one applied so
   *     a warm-starting replica knows where to resume
   * @return what the index did; {@link ApplyOutcome#REJECTED} also for a worker with no known model
   */
  ApplyOutcome apply(KvEvent event, long streamSequence);

  /**
   * Forgets everything held for a worker rank (e.g. before rebuilding it after a gap that replay
   * could not close). Equivalent to applying a {@code Cleared} event without a sequence number.
   */
  void resetWorker(String workerId, int dpRank);

  /** The highest stream sequence applied so far (-1 when none). */
  long lastStreamSequence();
}
