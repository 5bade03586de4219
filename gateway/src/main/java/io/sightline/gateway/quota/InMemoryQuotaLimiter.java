package io.sightline.gateway.quota;

import io.sightline.gateway.auth.ApiKeyPrincipal;
import java.time.Clock;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;

/**
 * Quotas for a single gateway: one fixed one-minute window per key, updated under the window's lock
 * (the critical section is a few additions, so contention is negligible).
 */
public final class InMemoryQuotaLimiter implements QuotaLimiter {
  private final Clock clock;
  private final ConcurrentHashMap<String, Window> windows = new ConcurrentHashMap<>();

  public InMemoryQuotaLimiter(Clock clock) {
    this.clock = clock;
  }

  private static final class Window {
    long minute;
    long requests;
    long tokens;
  }

  @Override
  public Mono<QuotaDecision> acquire(ApiKeyPrincipal principal, long estimatedTokens) {
    if (principal.requestsPerMinute() <= 0 && principal.tokensPerMinute() <= 0) {
      return Mono.just(QuotaDecision.ALLOWED);
    }
    long now = clock.millis();
    long minute = now / 60_000;
    long retryAfter = Math.max(1, (60_000 - now % 60_000 + 999) / 1000);
    Window w = windows.computeIfAbsent(principal.name(), k -> new Window());
    synchronized (w) {
      if (w.minute != minute) {
        w.minute = minute;
        w.requests = 0;
        w.tokens = 0;
      }
      if (principal.requestsPerMinute() > 0 && w.requests + 1 > principal.requestsPerMinute()) {
        return Mono.just(new QuotaDecision(false, retryAfter, "requests per minute"));
      }
      if (principal.tokensPerMinute() > 0
          && w.tokens + estimatedTokens > principal.tokensPerMinute()) {
        return Mono.just(new QuotaDecision(false, retryAfter, "tokens per minute"));
      }
      w.requests++;
      w.tokens += estimatedTokens;
      return Mono.just(QuotaDecision.ALLOWED);
    }
  }

  @Override
  public Mono<Void> adjustTokens(ApiKeyPrincipal principal, long delta) {
    Window w = windows.get(principal.name());
    if (w != null && principal.tokensPerMinute() > 0) {
      long minute = clock.millis() / 60_000;
      synchronized (w) {
        if (w.minute == minute) {
          w.tokens = Math.max(0, w.tokens + delta);
        }
      }
    }
    return Mono.empty();
  }
}
