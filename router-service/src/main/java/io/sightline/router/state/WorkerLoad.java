package io.sightline.router.state;

/**
 * In-flight load on one worker: requests routed there and not yet released, and the KV blocks they
 * were booked with (Dynamo's decode-load term, ../shared/reference/dynamo.md §4).
 */
public record WorkerLoad(int requests, long blocks) {
  public static final WorkerLoad ZERO = new WorkerLoad(0, 0);

  public WorkerLoad plus(WorkerLoad o) {
    return new WorkerLoad(requests + o.requests, blocks + o.blocks);
  }

  /** {@code requests:blocks}, the Redis value form. */
  public String encode() {
    return requests + ":" + blocks;
  }

  /** Inverse of {@link #encode()}; {@code null} when malformed. */
  public static WorkerLoad decode(String s) {
    int c = s == null ? -1 : s.indexOf(':');
    if (c <= 0) {
      return null;
    }
    try {
      return new WorkerLoad(
          Integer.parseInt(s.substring(0, c)), Long.parseLong(s.substring(c + 1)));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
