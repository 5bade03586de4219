package io.sightline.gateway.media;

import io.sightline.gateway.error.OpenAiException;

/**
 * A request's image could not be used: 400, never retried (the same URL would fail again), with a
 * bounded {@link #reason()} for the rejection counter.
 */
public final class MediaException extends OpenAiException {
  /** Bounded set of rejection reasons (metric label values). */
  public enum Reason {
    BLOCKED_ADDRESS,
    BLOCKED_DOMAIN,
    BAD_URL,
    FETCH_FAILED,
    TIMEOUT,
    TOO_LARGE,
    MALFORMED,
    TOO_MANY_PIXELS,
    TOO_MANY_IMAGES
  }

  private final Reason reason;

  public MediaException(Reason reason, String message) {
    super(400, "invalid_request_error", code(reason), "messages", message);
    this.reason = reason;
  }

  private static String code(Reason r) {
    return switch (r) {
      case BLOCKED_ADDRESS, BLOCKED_DOMAIN, BAD_URL -> "invalid_image_url";
      case FETCH_FAILED, TIMEOUT -> "image_fetch_failed";
      case TOO_LARGE, TOO_MANY_PIXELS -> "image_too_large";
      case MALFORMED -> "invalid_image";
      case TOO_MANY_IMAGES -> "too_many_images";
    };
  }

  public Reason reason() {
    return reason;
  }
}
