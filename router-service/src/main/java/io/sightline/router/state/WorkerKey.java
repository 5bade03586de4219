package io.sightline.router.state;

/**
 * A routing target: one worker and one of its data-parallel ranks (each rank has its own KV pool,
 * see ../shared/reference/llmd.md §8 item 4).
 */
public record WorkerKey(String workerId, int dpRank) implements Comparable<WorkerKey> {
  public WorkerKey {
    if (workerId == null || workerId.isEmpty()) {
      throw new IllegalArgumentException("workerId is required");
    }
    if (dpRank < 0) {
      throw new IllegalArgumentException("dpRank must be >= 0: " + dpRank);
    }
  }

  /** {@code worker|rank}, the form used in Redis fields; worker ids never contain {@code |}. */
  public String encode() {
    return workerId + "|" + dpRank;
  }

  /** Inverse of {@link #encode()}; {@code null} for a malformed field. */
  public static WorkerKey decode(String s) {
    int bar = s == null ? -1 : s.lastIndexOf('|');
    if (bar <= 0) {
      return null;
    }
    try {
      return new WorkerKey(s.substring(0, bar), Integer.parseInt(s.substring(bar + 1)));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  @Override
  public int compareTo(WorkerKey o) {
    int c = workerId.compareTo(o.workerId);
    return c != 0 ? c : Integer.compare(dpRank, o.dpRank);
  }
}
