package io.sightline.registry.config;

import io.sightline.registry.client.LocalRegistryClient;
import io.sightline.registry.client.RegistryClient;
import io.sightline.registry.client.RemoteRegistryClient;
import io.sightline.registry.service.ProcessorFamilyDetector;
import io.sightline.registry.service.RegistryService;
import io.sightline.registry.store.EtcdRegistryStore;
import io.sightline.registry.store.InMemoryRegistryStore;
import io.sightline.registry.store.RegistryStore;
import io.sightline.registry.store.StoreHealth;
import io.sightline.registry.web.RegistryHandler;
import io.sightline.registry.web.RegistryRoutes;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * Wires the registry into any Spring Boot app (the registry service itself, the gateway, the
 * standalone app). Every bean is {@link ConditionalOnMissingBean} so an embedding app can replace
 * one (e.g. its own {@link RegistryStore}).
 *
 * <ul>
 *   <li>{@code sightline.registry.mode=embedded} (default): a {@link RegistryStore} ({@code memory}
 *       or {@code etcd}), the {@link RegistryService} write rules, an in-process {@link
 *       LocalRegistryClient}, and in a reactive web app the {@code /v1/admin} API (unless {@code
 *       api-enabled=false}) plus a health indicator {@code registryStore} that reports etcd.
 *   <li>{@code sightline.registry.mode=remote}: only a {@link RemoteRegistryClient} following
 *       {@code sightline.registry.url}, with a health indicator {@code registryClient}.
 * </ul>
 */
@AutoConfiguration
@EnableConfigurationProperties(RegistryProperties.class)
public class RegistryAutoConfiguration {

  /**
   * Gauges over the client's cache (names follow the {@code sightline_} convention): {@code
   * sightline_registry_models}, {@code sightline_registry_workers{state}}, {@code
   * sightline_registry_api_keys}, {@code sightline_registry_client_connected} (1/0) and {@code
   * sightline_registry_revision}. Labels are bounded (worker state only).
   */
  @Bean
  @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
  @ConditionalOnMissingBean(name = "registryMetrics")
  io.micrometer.core.instrument.binder.MeterBinder registryMetrics(RegistryClient client) {
    return registry -> {
      io.micrometer.core.instrument.Gauge.builder(
              "sightline.registry.models", client, c -> c.models().size())
          .description("Model cards in the registry client's cache")
          .register(registry);
      for (io.sightline.registry.model.WorkerState state :
          io.sightline.registry.model.WorkerState.values()) {
        io.micrometer.core.instrument.Gauge.builder(
                "sightline.registry.workers",
                client,
                c -> c.workers().stream().filter(w -> w.state() == state).count())
            .description("Worker instances in the registry client's cache, by state")
            .tag("state", state.id())
            .register(registry);
      }
      io.micrometer.core.instrument.Gauge.builder(
              "sightline.registry.api.keys", client, c -> c.apiKeys().size())
          .description("API key records in the registry client's cache")
          .register(registry);
      io.micrometer.core.instrument.Gauge.builder(
              "sightline.registry.client.connected", client, c -> c.connected() ? 1 : 0)
          .description("1 while the registry client's watch is live, 0 while serving its cache")
          .register(registry);
      io.micrometer.core.instrument.Gauge.builder(
              "sightline.registry.revision", client, RegistryClient::revision)
          .description("Store revision the registry client's cache reflects")
          .register(registry);
    };
  }

  /** The registry's own store, service and in-process client. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(
      prefix = "sightline.registry",
      name = "mode",
      havingValue = "embedded",
      matchIfMissing = true)
  static class Embedded {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    RegistryStore registryStore(RegistryProperties props) {
      return switch (props.getStore()) {
        case MEMORY ->
            new InMemoryRegistryStore(
                props.getMemory().getFile(),
                props.getMemory().getHistorySize(),
                props.getMemory().getLeaseSweepInterval());
        case ETCD ->
            new EtcdRegistryStore(
                String.join(",", props.getEtcd().getEndpoints()),
                props.getEtcd().getPrefix(),
                props.getEtcd().getRequestTimeout());
      };
    }

    @Bean
    @ConditionalOnMissingBean
    ProcessorFamilyDetector processorFamilyDetector() {
      return new ProcessorFamilyDetector();
    }

    @Bean
    @ConditionalOnMissingBean
    RegistryService registryService(
        RegistryStore store, ProcessorFamilyDetector detector, RegistryProperties props) {
      return new RegistryService(
          store,
          detector,
          seconds(props.getDefaultLeaseTtl(), "default-lease-ttl"),
          seconds(props.getMaxLeaseTtl(), "max-lease-ttl"));
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    RegistryClient registryClient(RegistryStore store, RegistryProperties props) {
      RegistryProperties.Client c = props.getClient();
      return new LocalRegistryClient(
          store, c.getRetryDelay(), c.getMaxRetryDelay(), c.getProbeInterval());
    }

    @Bean
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnMissingBean(name = "registryStoreHealthIndicator")
    HealthIndicator registryStoreHealthIndicator(RegistryStore store) {
      return () -> {
        StoreHealth h = store.health();
        return (h.up() ? Health.up() : Health.down()).withDetails(h.details()).build();
      };
    }

    private static int seconds(java.time.Duration d, String name) {
      long s = d.toSeconds();
      if (s < 1 || s > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("sightline.registry." + name + " must be >= 1s: " + d);
      }
      return (int) s;
    }
  }

  /** The admin REST + SSE API of an embedded registry. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
  @ConditionalOnProperty(
      prefix = "sightline.registry",
      name = "mode",
      havingValue = "embedded",
      matchIfMissing = true)
  @ConditionalOnProperty(
      prefix = "sightline.registry",
      name = "api-enabled",
      havingValue = "true",
      matchIfMissing = true)
  static class Api {
    @Bean
    @ConditionalOnMissingBean
    RegistryHandler registryHandler(RegistryService service, RegistryProperties props) {
      long max = props.getMaxBodySize().toBytes();
      return new RegistryHandler(
          service, (int) Math.min(Integer.MAX_VALUE, Math.max(1, max)), props.getSseHeartbeat());
    }

    @Bean
    RouterFunction<ServerResponse> registryRoutes(
        RegistryHandler handler, RegistryProperties props) {
      return RegistryRoutes.routes(handler, props.getAdminToken());
    }
  }

  /** A client following a remote registry service. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(prefix = "sightline.registry", name = "mode", havingValue = "remote")
  static class Remote {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    RegistryClient registryClient(RegistryProperties props) {
      if (props.getUrl() == null) {
        throw new IllegalStateException(
            "sightline.registry.mode=remote needs sightline.registry.url (e.g. http://registry:8081)");
      }
      RegistryProperties.Client c = props.getClient();
      return new RemoteRegistryClient(
          props.getUrl(),
          props.getAdminToken(),
          c.getRetryDelay(),
          c.getMaxRetryDelay(),
          c.getIdleTimeout());
    }

    @Bean
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnMissingBean(name = "registryClientHealthIndicator")
    HealthIndicator registryClientHealthIndicator(RegistryClient client) {
      // Routing keeps working from the cached fleet while the registry is away, so a lost stream
      // is reported as a detail, not as DOWN (which would get healthy gateways restarted).
      return () ->
          Health.up()
              .withDetail("connected", client.connected())
              .withDetail("revision", client.revision())
              .withDetail("models", client.models().size())
              .withDetail("workers", client.workers().size())
              .build();
    }
  }
}
