package io.sightline.gateway.proxy;

/**
 * A worker failed before anything was sent to the client: connect error, timeout to first byte, or
 * a 5xx answer. Such failures may be retried on another worker.
 */
public final class UpstreamException extends RuntimeException {
  /** How it failed; decides the status the client finally sees (502, 503, 504). */
  public enum Kind {
    CONNECT,
    TIMEOUT,
    STATUS,
    BREAKER_OPEN
  }

  private final Kind kind;
  private final int status;

  public UpstreamException(Kind kind, int status, String message, Throwable cause) {
    super(message, cause, false, false);
    this.kind = kind;
    this.status = status;
  }

  public Kind kind() {
    return kind;
  }

  /** The worker's HTTP status for {@link Kind#STATUS}, else 0. */
  public int status() {
    return status;
  }
}
