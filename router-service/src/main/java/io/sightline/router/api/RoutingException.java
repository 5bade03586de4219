package io.sightline.router.api;

/**
 * A routing request that cannot be answered: malformed input, or no worker serves the model. {@link
 * #status()} is the HTTP status the router's API answers with (400, 404 or 503).
 */
public class RoutingException extends RuntimeException {
  private final int status;
  private final String code;

  public RoutingException(int status, String code, String message) {
    super(message);
    this.status = status;
    this.code = code;
  }

  /** HTTP status: 400 bad request, 404 unknown model without workers, 503 no healthy worker. */
  public int status() {
    return status;
  }

  /** Stable machine-readable code, e.g. {@code "no_workers"}, {@code "invalid_request"}. */
  public String code() {
    return code;
  }
}
