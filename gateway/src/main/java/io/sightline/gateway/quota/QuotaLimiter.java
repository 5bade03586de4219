package io.sightline.gateway.quota;

import io.sightline.gateway.auth.ApiKeyPrincipal;
import reactor.core.publisher.Mono;

/**
 * Per-key requests/minute and tokens/minute, counted in fixed one-minute windows. A request is
 * admitted only if both counters stay within their limits after adding it; otherwise nothing is
 * counted and the caller gets 429 with the seconds until the window rolls over.
 *
 * <p>Tokens are charged up front from an estimate (prompt size + requested {@code max_tokens}) and
 * corrected with {@link #adjustTokens} from the worker's usage once the answer is complete.
 */
public interface QuotaLimiter {

  /** Admits or refuses one request costing {@code estimatedTokens}. */
  Mono<QuotaDecision> acquire(ApiKeyPrincipal principal, long estimatedTokens);

  /** Adds {@code delta} (may be negative) to the key's token counter of the current window. */
  Mono<Void> adjustTokens(ApiKeyPrincipal principal, long delta);

  /**
   * @param allowed whether the request may proceed
   * @param retryAfterSeconds when refused, seconds until the current window ends
   * @param reason which limit refused it
   */
  record QuotaDecision(boolean allowed, long retryAfterSeconds, String reason) {
    public static final QuotaDecision ALLOWED = new QuotaDecision(true, 0, "");
  }
}
