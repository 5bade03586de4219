package io.sightline.router.ingest;

import io.sightline.routing.event.KvEvent;
import java.util.List;
import java.util.Objects;

/**
 * One message on the event plane: the normalised events of one source batch of one worker rank.
 *
 * <p>Two sequence spaces are kept apart on purpose. {@code sourceSequence} is the engine's position
 * (vLLM batch seq, TRT-LLM {@code event_id}); it restarts with the engine and is what a bridge
 * needs to resume a worker after a hand-over. Each event's own {@link KvEvent#sequence()} is the
 * bridge's <em>plane</em> sequence for the rank, strictly increasing across engine restarts and
 * bridge hand-overs, so the index's duplicate detection only ever drops real re-deliveries.
 *
 * @param workerId the worker
 * @param dpRank its data-parallel rank
 * @param sourceSequence the engine's sequence of the batch, or -1 for a synthetic message (a
 *     resync's {@code Cleared})
 * @param events the events, in order, each stamped with its plane sequence
 */
public record EventBatchMessage(
    String workerId, int dpRank, long sourceSequence, List<KvEvent> events) {
  public EventBatchMessage {
    Objects.requireNonNull(workerId, "workerId");
    events = List.copyOf(events);
  }

  /** The plane sequence of the last event, or -1 when empty. */
  public long lastEventSequence() {
    return events.isEmpty() ? -1 : events.get(events.size() - 1).sequence();
  }
}
