package io.sightline.gateway.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sightline.gateway.api.CompletionsController;
import io.sightline.gateway.api.ModelsController;
import io.sightline.gateway.auth.ApiKeyAuthenticator;
import io.sightline.gateway.auth.ApiKeyHasher;
import io.sightline.gateway.auth.ApiKeyStore;
import io.sightline.gateway.auth.ConfiguredApiKeyStore;
import io.sightline.gateway.auth.EtcdApiKeyStore;
import io.sightline.gateway.backend.BackendShaper;
import io.sightline.gateway.backend.TrtllmBackendShaper;
import io.sightline.gateway.backend.VllmBackendShaper;
import io.sightline.gateway.catalog.ModelCatalog;
import io.sightline.gateway.catalog.RegistryModelCatalog;
import io.sightline.gateway.error.OpenAiErrorWebExceptionHandler;
import io.sightline.gateway.media.AddressPolicy;
import io.sightline.gateway.media.HostResolver;
import io.sightline.gateway.media.MediaCache;
import io.sightline.gateway.media.MediaResolver;
import io.sightline.gateway.media.RedisMediaCache;
import io.sightline.gateway.media.SafeHttpFetcher;
import io.sightline.gateway.proxy.WorkerClient;
import io.sightline.gateway.quota.InMemoryQuotaLimiter;
import io.sightline.gateway.quota.QuotaLimiter;
import io.sightline.gateway.quota.RedisQuotaLimiter;
import io.sightline.registry.client.RegistryClient;
import io.sightline.router.api.RoutingService;
import io.sightline.router.web.HttpRoutingService;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Wires the gateway. Every bean is {@code @ConditionalOnMissingBean}, so an embedding app (the
 * standalone) or a test can replace any piece: the {@link RoutingService} (in-process router bean,
 * else {@link HttpRoutingService} to {@code sightline.gateway.router-url}), the {@link
 * ModelCatalog} (over the registry's {@link RegistryClient}), the {@link HostResolver} (DNS), the
 * {@link ApiKeyStore}, the backend shapers.
 *
 * <p>Redis is used only when {@code sightline.gateway.redis-url} is set (quotas and the shared
 * media cache); without it both live in memory and no Redis connection or health check exists.
 */
@AutoConfiguration
@EnableConfigurationProperties(GatewayProperties.class)
@ConditionalOnProperty(
    prefix = "sightline.gateway",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
public class GatewayAutoConfiguration {

  /** The gateway's private Jackson 2 mapper (Spring Boot 4's codecs are Jackson 3). */
  static final ObjectMapper JSON = new ObjectMapper();

  @Bean
  @ConditionalOnMissingBean
  public OpenAiErrorWebExceptionHandler openAiErrorWebExceptionHandler() {
    return new OpenAiErrorWebExceptionHandler();
  }

  @Bean
  @ConditionalOnMissingBean
  public ApiKeyStore sightlineApiKeyStore(GatewayProperties props) {
    ConfiguredApiKeyStore configured = new ConfiguredApiKeyStore(props.getAuth().getKeys());
    List<String> endpoints = props.getAuth().getEtcdEndpoints();
    if (endpoints == null || endpoints.isEmpty()) {
      return configured;
    }
    io.etcd.jetcd.Client etcd =
        io.etcd.jetcd.Client.builder().endpoints(endpoints.toArray(String[]::new)).build();
    return new EtcdApiKeyStore(etcd, props.getAuth().getEtcdPrefix(), configured);
  }

  @Bean
  @ConditionalOnMissingBean
  public ApiKeyAuthenticator sightlineApiKeyAuthenticator(
      GatewayProperties props, ApiKeyStore store) {
    GatewayProperties.Auth a = props.getAuth();
    return new ApiKeyAuthenticator(
        a.isEnabled(),
        new ApiKeyHasher(a.getPepper()),
        store,
        a.getDefaultRequestsPerMinute(),
        a.getDefaultTokensPerMinute());
  }

  /** The gateway's own Redis connection, present only when a URL is configured. */
  public record GatewayRedis(RedisClient client, StatefulRedisConnection<String, String> connection)
      implements AutoCloseable {
    @Override
    public void close() {
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public GatewayRedisHolder sightlineGatewayRedis(GatewayProperties props) {
    if (props.getRedisUrl() == null || props.getRedisUrl().isBlank()) {
      return new GatewayRedisHolder(null);
    }
    RedisClient client = RedisClient.create(props.getRedisUrl());
    return new GatewayRedisHolder(new GatewayRedis(client, client.connect()));
  }

  /** Optional Redis, as a bean that may be empty. */
  public static final class GatewayRedisHolder implements AutoCloseable {
    private final GatewayRedis redis;

    GatewayRedisHolder(GatewayRedis redis) {
      this.redis = redis;
    }

    public Optional<GatewayRedis> redis() {
      return Optional.ofNullable(redis);
    }

    @Override
    public void close() {
      if (redis != null) {
        redis.close();
      }
    }
  }

  @Bean
  @ConditionalOnMissingBean
  public QuotaLimiter sightlineQuotaLimiter(GatewayProperties props, GatewayRedisHolder redis) {
    return redis
        .redis()
        .<QuotaLimiter>map(
            r ->
                new RedisQuotaLimiter(
                    r.connection().reactive(), props.getRedisKeyPrefix(), Clock.systemUTC()))
        .orElseGet(() -> new InMemoryQuotaLimiter(Clock.systemUTC()));
  }

  @Bean
  @ConditionalOnMissingBean
  public MediaCache sightlineMediaCache(GatewayProperties props, GatewayRedisHolder redis) {
    return redis
        .redis()
        .<MediaCache>map(
            r -> new RedisMediaCache(r.connection().reactive(), props.getRedisKeyPrefix()))
        .orElse(MediaCache.NONE);
  }

  @Bean
  @ConditionalOnMissingBean
  public HostResolver sightlineHostResolver() {
    return HostResolver.SYSTEM;
  }

  @Bean
  @ConditionalOnMissingBean
  public SafeHttpFetcher sightlineSafeHttpFetcher(GatewayProperties props, HostResolver resolver) {
    GatewayProperties.Media m = props.getMedia();
    return new SafeHttpFetcher(
        new AddressPolicy(
            m.isAllowPrivateAddresses(),
            m.getAllowedDomains(),
            m.getDeniedDomains(),
            Set.copyOf(m.getTrustedHosts())),
        resolver,
        m.getConnectTimeout(),
        m.getReadTimeout(),
        m.getMaxRedirects(),
        m.isHttpsOnly());
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public MediaResolver sightlineMediaResolver(
      GatewayProperties props,
      SafeHttpFetcher fetcher,
      MediaCache cache,
      ObjectProvider<MeterRegistry> meters) {
    return new MediaResolver(
        props.getMedia(), fetcher, cache, meters.getIfAvailable(SimpleMeterRegistry::new));
  }

  @Bean
  @ConditionalOnMissingBean(VllmBackendShaper.class)
  public VllmBackendShaper sightlineVllmShaper() {
    return new VllmBackendShaper();
  }

  @Bean
  @ConditionalOnMissingBean(TrtllmBackendShaper.class)
  public TrtllmBackendShaper sightlineTrtllmShaper() {
    return new TrtllmBackendShaper();
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public WorkerClient sightlineWorkerClient(GatewayProperties props) {
    return new WorkerClient(
        props.getUpstream().getConnectTimeout(), props.getUpstream().getFirstByteTimeout());
  }

  @Bean
  @ConditionalOnMissingBean(name = "sightlineWorkerBreakers")
  public CircuitBreakerRegistry sightlineWorkerBreakers(
      GatewayProperties props, ObjectProvider<MeterRegistry> meters) {
    GatewayProperties.Upstream u = props.getUpstream();
    CircuitBreakerRegistry registry =
        CircuitBreakerRegistry.of(
            CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(u.getSlidingWindowSize())
                .minimumNumberOfCalls(u.getMinimumNumberOfCalls())
                .failureRateThreshold(u.getFailureRateThreshold())
                .waitDurationInOpenState(u.getOpenStateWait())
                .permittedNumberOfCallsInHalfOpenState(1)
                .automaticTransitionFromOpenToHalfOpenEnabled(true)
                .build());
    MeterRegistry m = meters.getIfAvailable();
    if (m != null) {
      // Labelled by worker id: a bounded, operator-defined set (never URLs or keys).
      TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(registry).bindTo(m);
    }
    return registry;
  }

  @Bean
  @ConditionalOnMissingBean
  public CompletionsController sightlineCompletionsController(
      GatewayProperties props,
      ApiKeyAuthenticator auth,
      QuotaLimiter quotas,
      ObjectProvider<ModelCatalog> catalog,
      ObjectProvider<RegistryClient> registry,
      MediaResolver media,
      ObjectProvider<RoutingService> router,
      List<BackendShaper> shapers,
      WorkerClient workers,
      CircuitBreakerRegistry sightlineWorkerBreakers,
      ObjectProvider<MeterRegistry> meters) {
    return new CompletionsController(
        props,
        JSON,
        auth,
        quotas,
        catalog(catalog, registry),
        media,
        router(router, props),
        shapers,
        workers,
        sightlineWorkerBreakers,
        meters.getIfAvailable(SimpleMeterRegistry::new));
  }

  @Bean
  @ConditionalOnMissingBean
  public ModelsController sightlineModelsController(
      ObjectProvider<ModelCatalog> catalog,
      ObjectProvider<RegistryClient> registry,
      ApiKeyAuthenticator auth) {
    return new ModelsController(catalog(catalog, registry), auth, JSON);
  }

  /**
   * A {@link ModelCatalog} bean if one exists, else one over the registry client. Resolved when the
   * controllers are created, so the order of auto-configurations does not matter.
   */
  static ModelCatalog catalog(
      ObjectProvider<ModelCatalog> catalog, ObjectProvider<RegistryClient> registry) {
    ModelCatalog c = catalog.getIfAvailable();
    if (c != null) {
      return c;
    }
    RegistryClient client = registry.getIfAvailable();
    if (client == null) {
      throw new IllegalStateException(
          "The gateway needs a RegistryClient bean (in-process registry, or the registry's remote"
              + " client) or a ModelCatalog bean");
    }
    return new RegistryModelCatalog(client);
  }

  /**
   * The router: the HTTP client to {@code router-url} when that is set (explicit configuration
   * wins, so a gateway process that also has the router library on its class path still talks to
   * the router service), else the in-process {@link RoutingService} bean.
   */
  static RoutingService router(ObjectProvider<RoutingService> router, GatewayProperties props) {
    if (props.getRouterUrl() != null && !props.getRouterUrl().isBlank()) {
      return new HttpRoutingService(
          props.getRouterUrl(), Duration.ofSeconds(2), Duration.ofSeconds(10));
    }
    RoutingService r = router.getIfAvailable();
    if (r == null) {
      throw new IllegalStateException(
          "No RoutingService bean and no sightline.gateway.router-url: embed the router or point"
              + " the gateway at a router service");
    }
    return r;
  }
}
