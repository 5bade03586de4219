package io.sightline.routing.index;

import java.util.Map;

/**
 * A snapshot of {@link KvIndex} counters.
 *
 * @param nodes radix nodes (distinct prefix positions)
 * @param entries holder entries: (block, worker rank, tier) event entries plus predictions
 * @param workers worker ranks seen
 * @param eventsApplied events applied (not counting duplicates)
 * @param blocksStored local blocks stored (after splitting)
 * @param blocksRemoved local blocks removed
 * @param duplicates events skipped as replays of applied sequence numbers
 * @param unknownParents stored events dropped because the parent hash was unknown
 * @param unknownRemovals removed hashes that were not indexed
 * @param sequenceResets sequence numbers that jumped back past the replay window (publisher
 *     restarts)
 * @param predictionEvictions predictions evicted by the entry budget (LRU)
 * @param rejected stored events rejected by the converter, by reason
 */
public record IndexStats(
    long nodes,
    long entries,
    int workers,
    long eventsApplied,
    long blocksStored,
    long blocksRemoved,
    long duplicates,
    long unknownParents,
    long unknownRemovals,
    long sequenceResets,
    long predictionEvictions,
    Map<String, Long> rejected) {
  public IndexStats {
    rejected = Map.copyOf(rejected);
  }
}
