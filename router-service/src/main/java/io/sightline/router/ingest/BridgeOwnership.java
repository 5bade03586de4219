package io.sightline.router.ingest;

import java.util.Collection;
import java.util.Set;

/**
 * Decides which workers this router replica bridges onto the event plane. Exactly one replica may
 * bridge a worker: two vLLM bridges would publish every batch twice, and two TRT-LLM pollers would
 * each drain half of the destructive {@code /kv_cache_events} reads.
 */
public interface BridgeOwnership extends AutoCloseable {

  /**
   * Tries to own every candidate worker and returns those this replica owns now. Called
   * periodically; a worker may move away between calls (its owner lost its lease).
   */
  Set<String> claim(Collection<String> candidateWorkerIds);

  /** Gives up every ownership (others take over at once). */
  @Override
  void close();

  /** The embedded default: a single router owns every worker. */
  static BridgeOwnership all() {
    return new BridgeOwnership() {
      @Override
      public Set<String> claim(Collection<String> candidates) {
        return Set.copyOf(candidates);
      }

      @Override
      public void close() {}
    };
  }
}
