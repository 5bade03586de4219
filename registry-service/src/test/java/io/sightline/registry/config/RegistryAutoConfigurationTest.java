package io.sightline.registry.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.registry.client.LocalRegistryClient;
import io.sightline.registry.client.RegistryClient;
import io.sightline.registry.client.RemoteRegistryClient;
import io.sightline.registry.service.RegistryService;
import io.sightline.registry.store.EtcdRegistryStore;
import io.sightline.registry.store.InMemoryRegistryStore;
import io.sightline.registry.store.RegistryStore;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.web.reactive.function.server.RouterFunction;

/** Which beans each mode wires, without starting a server. */
class RegistryAutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(RegistryAutoConfiguration.class));

  @TempDir Path dir;

  @Test
  void embeddedDefaultIsAnInMemoryStoreWithALocalClient() {
    runner.run(
        ctx -> {
          assertThat(ctx).hasSingleBean(InMemoryRegistryStore.class);
          assertThat(ctx).hasSingleBean(RegistryService.class);
          assertThat(ctx.getBean(RegistryClient.class)).isInstanceOf(LocalRegistryClient.class);
          assertThat(ctx).doesNotHaveBean(RouterFunction.class); // not a web app
        });
  }

  @Test
  void memoryFileAndEtcdAreSelectedByProperties() {
    runner
        .withPropertyValues("sightline.registry.memory.file=" + dir.resolve("r.json"))
        .run(
            ctx ->
                assertThat(ctx.getBean(RegistryStore.class).health().details())
                    .containsEntry("file", dir.resolve("r.json").toString()));
    runner
        .withPropertyValues(
            "sightline.registry.store=etcd",
            "sightline.registry.etcd.endpoints=http://127.0.0.1:1",
            "sightline.registry.etcd.prefix=/x",
            "sightline.registry.etcd.request-timeout=200ms")
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(EtcdRegistryStore.class);
              // an unreachable etcd does not stop the app: the client starts empty and disconnected
              assertThat(ctx.getBean(RegistryClient.class).connected()).isFalse();
              assertThat(ctx.getBean(RegistryStore.class).health().up()).isFalse();
            });
  }

  @Test
  void remoteModeHasOnlyAClient() {
    runner
        .withPropertyValues(
            "sightline.registry.mode=remote", "sightline.registry.url=http://127.0.0.1:1")
        .run(
            ctx -> {
              assertThat(ctx.getBean(RegistryClient.class))
                  .isInstanceOf(RemoteRegistryClient.class);
              assertThat(ctx).doesNotHaveBean(RegistryStore.class);
              assertThat(ctx).doesNotHaveBean(RegistryService.class);
            });
    runner
        .withPropertyValues("sightline.registry.mode=remote")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("needs sightline.registry.url"));
  }

  @Test
  void reactiveWebAppsGetTheApiUnlessDisabled() {
    ReactiveWebApplicationContextRunner web =
        new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RegistryAutoConfiguration.class));
    web.run(ctx -> assertThat(ctx).hasBean("registryRoutes"));
    web.withPropertyValues("sightline.registry.api-enabled=false")
        .run(ctx -> assertThat(ctx).doesNotHaveBean("registryRoutes"));
  }
}
