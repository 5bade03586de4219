package io.sightline.routing.index;

import java.util.Objects;

/** One index participant: a worker's data-parallel rank. */
public record WorkerKey(String workerId, int dpRank) implements Comparable<WorkerKey> {
  public WorkerKey {
    Objects.requireNonNull(workerId, "workerId");
    if (dpRank < 0) {
      throw new IllegalArgumentException("dpRank must be >= 0, was " + dpRank);
    }
  }

  @Override
  public int compareTo(WorkerKey o) {
    int c = workerId.compareTo(o.workerId);
    return c != 0 ? c : Integer.compare(dpRank, o.dpRank);
  }

  // explicit and allocation-free: worker keys are hashed on every query and selection
  @Override
  public int hashCode() {
    return workerId.hashCode() * 31 + dpRank;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WorkerKey k && dpRank == k.dpRank && workerId.equals(k.workerId);
  }

  @Override
  public String toString() {
    return workerId + "/" + dpRank;
  }
}
