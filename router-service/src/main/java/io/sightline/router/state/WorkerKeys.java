package io.sightline.router.state;

import io.sightline.routing.index.WorkerKey;

/** The string form of a {@link WorkerKey} in Redis fields: {@code worker|rank}. */
public final class WorkerKeys {
  private WorkerKeys() {}

  /** {@code worker|rank}; the last {@code |} separates, so worker ids may contain one. */
  public static String encode(WorkerKey k) {
    return k.workerId() + "|" + k.dpRank();
  }

  /** Inverse of {@link #encode}; {@code null} for a malformed field. */
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
}
