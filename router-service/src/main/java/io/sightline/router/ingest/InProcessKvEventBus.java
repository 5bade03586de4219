package io.sightline.router.ingest;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The embedded default event plane: {@link #publish} hands each message synchronously to every
 * subscriber, on the publishing bridge's thread. Ordering per worker rank follows from each rank
 * having a single bridge thread; a lock per bus keeps different subscribers seeing the same global
 * order. Nothing is retained except the newest message per worker rank (for {@link #last}), and
 * stream positions are -1.
 */
public final class InProcessKvEventBus implements KvEventBus {

  private final List<Consumer> consumers = new CopyOnWriteArrayList<>();
  private final Map<String, EventBatchMessage> last = new ConcurrentHashMap<>();
  private final Object order = new Object();

  @Override
  public void publish(EventBatchMessage message) {
    synchronized (order) {
      last.put(key(message.workerId(), message.dpRank()), message);
      for (Consumer c : consumers) {
        c.accept(message, -1);
      }
    }
  }

  @Override
  public Optional<EventBatchMessage> last(String workerId, int dpRank) {
    return Optional.ofNullable(last.get(key(workerId, dpRank)));
  }

  @Override
  public AutoCloseable subscribe(long afterStreamSequence, Consumer consumer) {
    consumers.add(consumer);
    return () -> consumers.remove(consumer);
  }

  @Override
  public boolean durable() {
    return false;
  }

  @Override
  public void close() {
    consumers.clear();
  }

  private static String key(String workerId, int dpRank) {
    return workerId + '\u0000' + dpRank;
  }
}
