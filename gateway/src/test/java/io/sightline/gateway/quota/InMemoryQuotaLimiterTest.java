package io.sightline.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.gateway.auth.ApiKeyPrincipal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class InMemoryQuotaLimiterTest {
  private final AtomicLong now = new AtomicLong(1_700_000_080_000L); // 40 s into a minute

  private final Clock clock =
      new Clock() {
        @Override
        public java.time.ZoneId getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
          return this;
        }

        @Override
        public Instant instant() {
          return Instant.ofEpochMilli(now.get());
        }
      };

  @Test
  void requestsPerMinute() {
    QuotaLimiter q = new InMemoryQuotaLimiter(clock);
    ApiKeyPrincipal p = new ApiKeyPrincipal("k", Set.of(), 2, 0);
    assertThat(q.acquire(p, 10).block().allowed()).isTrue();
    assertThat(q.acquire(p, 10).block().allowed()).isTrue();
    QuotaLimiter.QuotaDecision refused = q.acquire(p, 10).block();
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.reason()).isEqualTo("requests per minute");
    assertThat(refused.retryAfterSeconds()).isEqualTo(20);
    now.addAndGet(20_000); // next window
    assertThat(q.acquire(p, 10).block().allowed()).isTrue();
  }

  @Test
  void tokensPerMinuteWithCorrection() {
    QuotaLimiter q = new InMemoryQuotaLimiter(clock);
    ApiKeyPrincipal p = new ApiKeyPrincipal("t", Set.of(), 0, 100);
    assertThat(q.acquire(p, 60).block().allowed()).isTrue();
    assertThat(q.acquire(p, 60).block().allowed()).isFalse();
    q.adjustTokens(p, -30).block(); // the first request used 30 tokens, not 60
    assertThat(q.acquire(p, 60).block().allowed()).isTrue();
    assertThat(q.acquire(p, 20).block().reason()).isEqualTo("tokens per minute");
  }

  @Test
  void unlimitedKeysAreNotCounted() {
    QuotaLimiter q = new InMemoryQuotaLimiter(clock);
    ApiKeyPrincipal p = new ApiKeyPrincipal("u", Set.of(), 0, 0);
    for (int i = 0; i < 1000; i++) {
      assertThat(q.acquire(p, 1_000_000).block().allowed()).isTrue();
    }
  }
}
