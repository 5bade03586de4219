package io.sightline.gateway.media;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sightline.gateway.config.GatewayProperties;
import io.sightline.gateway.support.ImageServer;
import io.sightline.router.api.ResolvedImage;
import io.sightline.routing.multimodal.MmHashes;
import io.sightline.testsupport.Infra;
import io.sightline.testsupport.Service;
import io.sightline.testsupport.UsesInfra;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Two gateways sharing the media metadata cache in a real Redis fetch an image once. */
@UsesInfra(Service.REDIS)
class RedisMediaCacheTest {

  @Test
  void aFleetFetchesEachImageOnce() throws Exception {
    RedisClient client = RedisClient.create(Infra.endpoint(Service.REDIS));
    try (StatefulRedisConnection<String, String> conn = client.connect();
        ImageServer server = new ImageServer().file("/p.png", "valid/pillow_hopper.png")) {
      String prefix = "test:" + UUID.randomUUID() + ":";
      SafeHttpFetcher fetcher =
          new SafeHttpFetcher(
              new AddressPolicy(false, List.of(), List.of(), Set.of("127.0.0.1")),
              HostResolver.SYSTEM,
              Duration.ofSeconds(2),
              Duration.ofSeconds(2),
              3,
              false);
      MediaResolver gatewayA =
          new MediaResolver(
              new GatewayProperties().getMedia(),
              fetcher,
              new RedisMediaCache(conn.reactive(), prefix),
              new SimpleMeterRegistry());
      MediaResolver gatewayB =
          new MediaResolver(
              new GatewayProperties().getMedia(),
              fetcher,
              new RedisMediaCache(conn.reactive(), prefix),
              new SimpleMeterRegistry());
      try {
        String url = "http://127.0.0.1:" + server.port() + "/p.png";
        ResolvedImage expected = new ResolvedImage(MmHashes.ofUrl(url), 128, 128);
        assertThat(gatewayA.resolveOne(url, false).block()).isEqualTo(expected);
        int fetches = server.hits("/p.png");
        assertThat(fetches).isPositive();
        assertThat(gatewayB.resolveOne(url, false).block()).isEqualTo(expected);
        assertThat(server.hits("/p.png")).isEqualTo(fetches);
        // The entry carries a TTL and no URL in its key.
        List<String> keys = conn.sync().keys(prefix + "*");
        assertThat(keys).hasSize(1);
        assertThat(keys.get(0)).doesNotContain("127.0.0.1");
        assertThat(conn.sync().pttl(keys.get(0))).isPositive();
      } finally {
        gatewayA.close();
        gatewayB.close();
        conn.sync().del(conn.sync().keys(prefix + "*").toArray(String[]::new));
      }
    } finally {
      client.shutdown();
    }
  }

  @Test
  void parsesOnlyWellFormedValues() {
    assertThat(RedisMediaCache.parse("ff:2:3")).isEqualTo(new ResolvedImage(255, 2, 3));
    assertThat(RedisMediaCache.parse("fffffffffffffffe:1:1").mmHash()).isEqualTo(-2L);
    assertThat(RedisMediaCache.parse("zz:1:1")).isNull();
    assertThat(RedisMediaCache.parse("1:2")).isNull();
  }
}
