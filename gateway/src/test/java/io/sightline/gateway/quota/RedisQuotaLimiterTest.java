package io.sightline.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.sightline.gateway.auth.ApiKeyPrincipal;
import io.sightline.testsupport.Infra;
import io.sightline.testsupport.Service;
import io.sightline.testsupport.UsesInfra;
import java.time.Clock;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Lua-scripted quota against a real Redis, shared by two limiter instances (two gateways). */
@UsesInfra(Service.REDIS)
class RedisQuotaLimiterTest {
  static RedisClient client;
  static StatefulRedisConnection<String, String> connection;

  @BeforeAll
  static void connect() {
    client = RedisClient.create(Infra.endpoint(Service.REDIS));
    connection = client.connect();
  }

  @AfterAll
  static void close() {
    connection.close();
    client.shutdown();
  }

  @Test
  void twoGatewaysShareOneBudget() {
    String prefix = "test:" + UUID.randomUUID() + ":";
    RedisQuotaLimiter a = new RedisQuotaLimiter(connection.reactive(), prefix, Clock.systemUTC());
    RedisQuotaLimiter b = new RedisQuotaLimiter(connection.reactive(), prefix, Clock.systemUTC());
    ApiKeyPrincipal p = new ApiKeyPrincipal("team", Set.of(), 3, 1000);
    assertThat(a.acquire(p, 100).block().allowed()).isTrue();
    assertThat(b.acquire(p, 100).block().allowed()).isTrue();
    assertThat(a.acquire(p, 100).block().allowed()).isTrue();
    QuotaLimiter.QuotaDecision d = b.acquire(p, 100).block();
    assertThat(d.allowed()).isFalse();
    assertThat(d.reason()).isEqualTo("requests per minute");
    assertThat(d.retryAfterSeconds()).isBetween(1L, 60L);
    // Refused requests are not counted.
    assertThat(connection.sync().get(a.currentKeys(p).get(0))).isIn("3", null);
  }

  @Test
  void tokensAreCheckedAndCorrected() {
    String prefix = "test:" + UUID.randomUUID() + ":";
    RedisQuotaLimiter q = new RedisQuotaLimiter(connection.reactive(), prefix, Clock.systemUTC());
    ApiKeyPrincipal p = new ApiKeyPrincipal("tok", Set.of(), 0, 100);
    assertThat(q.acquire(p, 80).block().allowed()).isTrue();
    assertThat(q.acquire(p, 30).block().reason()).isEqualTo("tokens per minute");
    q.adjustTokens(p, -50).block();
    assertThat(q.acquire(p, 30).block().allowed()).isTrue();
    assertThat(connection.sync().pttl(q.currentKeys(p).get(1))).isPositive();
  }
}
