package io.sightline.routing.index;

import java.util.Collections;
import java.util.Map;

/**
 * The result of {@link KvIndex#query(long[])}: per worker rank with a non-zero match, its {@link
 * WorkerOverlap}. Workers not present matched nothing.
 *
 * @param requestBlocks number of local hashes queried
 * @param overlaps non-zero overlaps by worker
 */
public record OverlapScores(int requestBlocks, Map<WorkerKey, WorkerOverlap> overlaps) {
  public OverlapScores {
    overlaps = Collections.unmodifiableMap(overlaps);
  }

  /** The overlap of {@code worker}, zeros when it matched nothing. */
  public WorkerOverlap of(WorkerKey worker) {
    WorkerOverlap o = overlaps.get(worker);
    return o == null ? WorkerOverlap.none(worker) : o;
  }

  /** The deepest match over all workers. */
  public int maxMatchedBlocks() {
    int max = 0;
    for (WorkerOverlap o : overlaps.values()) {
      max = Math.max(max, o.matchedBlocks());
    }
    return max;
  }
}
