package io.sightline.gateway.quota;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.reactive.RedisReactiveCommands;
import io.sightline.gateway.auth.ApiKeyPrincipal;
import java.time.Clock;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * Quotas shared by every gateway of a fleet: the same fixed one-minute windows as {@link
 * InMemoryQuotaLimiter}, kept in Redis and updated atomically by one Lua script (check both limits,
 * count both or neither), so N gateways together admit at most the configured rate. Keys expire two
 * minutes after their window starts.
 *
 * <p>Spring Cloud Gateway's {@code RedisRateLimiter} is a per-second token bucket with a fixed cost
 * per request; tokens/minute needs a per-request cost, hence this script.
 */
public final class RedisQuotaLimiter implements QuotaLimiter {
  private static final String SCRIPT =
      """
      local rpm = tonumber(ARGV[1])
      local tpm = tonumber(ARGV[2])
      local cost = tonumber(ARGV[3])
      local r = tonumber(redis.call('GET', KEYS[1]) or '0')
      local t = tonumber(redis.call('GET', KEYS[2]) or '0')
      if rpm > 0 and r + 1 > rpm then return 1 end
      if tpm > 0 and t + cost > tpm then return 2 end
      redis.call('INCR', KEYS[1])
      redis.call('PEXPIRE', KEYS[1], 120000)
      redis.call('INCRBY', KEYS[2], cost)
      redis.call('PEXPIRE', KEYS[2], 120000)
      return 0
      """;

  private final RedisReactiveCommands<String, String> redis;
  private final String prefix;
  private final Clock clock;

  public RedisQuotaLimiter(
      RedisReactiveCommands<String, String> redis, String prefix, Clock clock) {
    this.redis = redis;
    this.prefix = prefix;
    this.clock = clock;
  }

  @Override
  public Mono<QuotaDecision> acquire(ApiKeyPrincipal principal, long estimatedTokens) {
    if (principal.requestsPerMinute() <= 0 && principal.tokensPerMinute() <= 0) {
      return Mono.just(QuotaDecision.ALLOWED);
    }
    long now = clock.millis();
    long minute = now / 60_000;
    long retryAfter = Math.max(1, (60_000 - now % 60_000 + 999) / 1000);
    String[] keys = {key(principal, "r", minute), key(principal, "t", minute)};
    return redis
        .<Long>eval(
            SCRIPT,
            ScriptOutputType.INTEGER,
            keys,
            Long.toString(principal.requestsPerMinute()),
            Long.toString(principal.tokensPerMinute()),
            Long.toString(Math.max(0, estimatedTokens)))
        .next()
        .map(
            code ->
                switch (code.intValue()) {
                  case 0 -> QuotaDecision.ALLOWED;
                  case 1 -> new QuotaDecision(false, retryAfter, "requests per minute");
                  default -> new QuotaDecision(false, retryAfter, "tokens per minute");
                });
  }

  @Override
  public Mono<Void> adjustTokens(ApiKeyPrincipal principal, long delta) {
    if (principal.tokensPerMinute() <= 0 || delta == 0) {
      return Mono.empty();
    }
    String key = key(principal, "t", clock.millis() / 60_000);
    return redis.exists(key).filter(n -> n > 0).flatMap(n -> redis.incrby(key, delta)).then();
  }

  private String key(ApiKeyPrincipal principal, String kind, long minute) {
    return prefix + "quota:" + kind + ":" + principal.name() + ":" + minute;
  }

  /** Keys this limiter would use now; for tests and operators. */
  List<String> currentKeys(ApiKeyPrincipal principal) {
    long minute = clock.millis() / 60_000;
    return List.of(key(principal, "r", minute), key(principal, "t", minute));
  }
}
