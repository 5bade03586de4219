package io.sightline.router.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.registry.client.LocalRegistryClient;
import io.sightline.registry.client.RegistryClient;
import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.store.InMemoryRegistryStore;
import io.sightline.registry.store.RegistryStore;
import io.sightline.router.RouterAutoConfiguration;
import io.sightline.router.api.RoutingService;
import io.sightline.router.engine.RouterEngine;
import io.sightline.router.engine.RouterStateLoop;
import io.sightline.router.model.KvEventSink;
import io.sightline.router.model.ModelRuntimes;
import io.sightline.router.state.InMemoryStateHub;
import io.sightline.router.state.IndexSnapshot;
import io.sightline.router.state.RedisStateBackend;
import io.sightline.router.state.StateBackend;
import io.sightline.routing.event.KvEvent;
import io.sightline.testsupport.Infra;
import io.sightline.testsupport.Service;
import io.sightline.testsupport.UsesInfra;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The auto-configuration's wiring: defaults, Redis mode and warm start before ingestion. */
@UsesInfra(Service.REDIS)
class RouterAutoConfigurationTest {

  @Configuration(proxyBeanMethods = false)
  static class Registry {
    @Bean
    RegistryStore store() {
      InMemoryRegistryStore s = new InMemoryRegistryStore();
      s.putModel(ModelCard.of("m", BackendKind.VLLM, 4), RegistryStore.ANY_REVISION);
      s.putWorker(
          WorkerInstance.of("worker_1", "m", "http://w1", BackendKind.VLLM, 4),
          RegistryStore.ANY_REVISION);
      return s;
    }

    @Bean(destroyMethod = "close")
    RegistryClient registryClient(RegistryStore store) {
      return new LocalRegistryClient(store);
    }
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(RouterAutoConfiguration.class))
          .withUserConfiguration(Registry.class);

  @Test
  void embeddedDefaultsNeedNoProperties() {
    runner.run(
        ctx -> {
          assertThat(ctx).hasNotFailed();
          assertThat(ctx.getBean(RoutingService.class)).isInstanceOf(RouterEngine.class);
          assertThat(ctx.getBean(StateBackend.class)).isInstanceOf(InMemoryStateHub.class);
          assertThat(ctx.getBean(KvEventSink.class)).isSameAs(ctx.getBean(ModelRuntimes.class));
          assertThat(ctx).hasSingleBean(RouterStateLoop.class);
        });
  }

  @Test
  void withoutARegistryClientTheRouterStaysOff() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RouterAutoConfiguration.class))
        .run(ctx -> assertThat(ctx).doesNotHaveBean(RoutingService.class));
  }

  @Test
  void redisModeWarmStartsFromTheNewestSnapshotBeforeIngestion() throws Exception {
    String prefix = "sightline-autoconf:" + UUID.randomUUID();
    String url = Infra.endpoint(Service.REDIS);
    // a replica that saw events up to stream seq 42 left a snapshot behind
    byte[] data;
    try (InMemoryRegistryStore s = (InMemoryRegistryStore) new Registry().store();
        LocalRegistryClient client = new LocalRegistryClient(s);
        ModelRuntimes donor =
            new ModelRuntimes(
                client,
                new ModelRuntimes.Options(
                    io.sightline.routing.index.IndexConfig.DEFAULTS,
                    true,
                    java.nio.file.Files.createTempDirectory("hf-"),
                    16))) {
      donor.apply(
          KvEvent.Stored.of(
              "worker_1", 0, 5, new long[] {1, 2}, null, new int[] {1, 2, 3, 4, 5, 6, 7, 8}, 4),
          42);
      data = donor.snapshot().data();
    }
    try (RedisStateBackend redis =
        new RedisStateBackend(url, prefix, Duration.ofSeconds(5), 1000, Duration.ofMinutes(5))) {
      redis.snapshots().save(new IndexSnapshot("gone", 42, System.currentTimeMillis(), data));
    }
    runner
        .withPropertyValues(
            "sightline.router.state.mode=redis",
            "sightline.router.state.redis-url=" + url,
            "sightline.router.state.key-prefix=" + prefix,
            "sightline.router.replica-id=fresh")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx.getBean(StateBackend.class)).isInstanceOf(RedisStateBackend.class);
              KvEventSink sink = ctx.getBean(KvEventSink.class);
              assertThat(sink.lastStreamSequence()).as("ingestion resumes after 42").isEqualTo(42);
              var body =
                  io.sightline.router.api.RouterJson.mapper()
                      .readTree("{\"model\":\"m\",\"prompt\":[1,2,3,4,5,6,7,8]}");
              var d =
                  ctx.getBean(RoutingService.class)
                      .explain(
                          new io.sightline.router.api.RouteRequest(
                              "m", body, java.util.List.of(), false));
              assertThat(d.overlapBlocks()).as("index restored from the snapshot").isEqualTo(2);
            });
  }
}
