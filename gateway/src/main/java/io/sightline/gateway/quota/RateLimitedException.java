package io.sightline.gateway.quota;

import io.sightline.gateway.error.OpenAiException;

/** 429 with the seconds after which the client may retry ({@code Retry-After}). */
public final class RateLimitedException extends OpenAiException {
  private final long retryAfterSeconds;

  public RateLimitedException(String message, long retryAfterSeconds) {
    super(429, "rate_limit_error", "rate_limit_exceeded", null, message);
    this.retryAfterSeconds = retryAfterSeconds;
  }

  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
