package io.sightline.router.ingest;

import java.util.Optional;

/**
 * The KV event plane between bridges (which turn one worker's engine stream into {@link
 * EventBatchMessage}s) and every router replica's index.
 *
 * <p>Contract (tested by one suite over both implementations):
 *
 * <ul>
 *   <li>Messages of one worker rank are delivered to every subscriber in publish order, each once
 *       per subscription.
 *   <li>{@link #last} returns the newest message published for a worker rank, so a bridge taking
 *       over a worker resumes where the previous owner stopped.
 *   <li>A durable plane ({@link NatsKvEventBus}) also lets a subscriber start after a stream
 *       position, so a late replica replays what it missed ({@link #durable()}).
 * </ul>
 *
 * Implementations: {@link InProcessKvEventBus} (embedded default) and {@link NatsKvEventBus}
 * (distributed; one JetStream subject per worker rank).
 */
public interface KvEventBus extends AutoCloseable {

  /** Receives messages in stream order, on the bus's delivery thread. */
  @FunctionalInterface
  interface Consumer {
    /**
     * @param message the message
     * @param streamSequence its position in the plane (JetStream stream sequence), or -1 on a plane
     *     without positions
     */
    void accept(EventBatchMessage message, long streamSequence);
  }

  /** Publishes one message; returns once the plane has accepted it. */
  void publish(EventBatchMessage message) throws EventPlaneException;

  /** The newest message published for a worker rank, if the plane still holds one. */
  Optional<EventBatchMessage> last(String workerId, int dpRank) throws EventPlaneException;

  /**
   * Delivers every message after stream position {@code afterStreamSequence} (0: from the beginning
   * the plane still holds; ignored by planes without history) and every later one, until the
   * returned handle is closed.
   */
  AutoCloseable subscribe(long afterStreamSequence, Consumer consumer) throws EventPlaneException;

  /** Whether messages are retained and positions are meaningful. */
  boolean durable();

  @Override
  void close();
}
