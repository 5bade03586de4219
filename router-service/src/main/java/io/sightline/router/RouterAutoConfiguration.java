package io.sightline.router;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sightline.registry.client.RegistryClient;
import io.sightline.router.api.RoutingService;
import io.sightline.router.engine.RouterEngine;
import io.sightline.router.engine.RouterMetrics;
import io.sightline.router.engine.RouterStateLoop;
import io.sightline.router.engine.WorkerMetricsSource;
import io.sightline.router.ingest.LoadBoard;
import io.sightline.router.model.ModelRuntimes;
import io.sightline.router.state.InMemoryStateHub;
import io.sightline.router.state.IndexSnapshot;
import io.sightline.router.state.PredictionStore;
import io.sightline.router.state.RedisStateBackend;
import io.sightline.router.state.SharedLoad;
import io.sightline.router.state.StateBackend;
import io.sightline.router.web.RoutingController;
import io.sightline.routing.index.IndexConfig;
import io.sightline.routing.selection.LoadTracker;
import io.sightline.routing.selection.RouterConfig;
import io.sightline.routing.selection.WorkerMetrics;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;

/**
 * Wires the router: replicated state (in memory, or Redis with {@code
 * sightline.router.state.mode=redis}), per-model runtimes fed by the registry (warm-started from
 * the newest snapshot before event ingestion subscribes), the {@link RouterEngine} as the {@link
 * RoutingService}, the background state loop, and the HTTP endpoints in a reactive web app. Every
 * bean is {@link ConditionalOnMissingBean} so the standalone app (or a test) can replace any of
 * them. Needs a {@link RegistryClient} bean (the registry's auto-configuration provides one).
 * Disable with {@code sightline.router.enabled=false}.
 */
@AutoConfiguration(afterName = "io.sightline.registry.config.RegistryAutoConfiguration")
@EnableConfigurationProperties(RouterProperties.class)
@ConditionalOnProperty(
    prefix = "sightline.router",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@ConditionalOnBean(RegistryClient.class)
public class RouterAutoConfiguration {
  private static final Logger log = LoggerFactory.getLogger(RouterAutoConfiguration.class);

  /** The effective replica id (configured, or host name + random suffix). */
  public record ReplicaId(String value) {}

  @Bean
  @ConditionalOnMissingBean
  ReplicaId routerReplicaId(RouterProperties props) {
    String id = props.getReplicaId();
    if (id == null || id.isBlank()) {
      String host;
      try {
        host = InetAddress.getLocalHost().getHostName();
      } catch (IOException e) {
        host = "router";
      }
      id = host + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
    return new ReplicaId(id);
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  StateBackend routerStateBackend(RouterProperties props) {
    RouterProperties.State s = props.getState();
    if ("redis".equals(s.getMode())) {
      return new RedisStateBackend(
          s.getRedisUrl(),
          s.getKeyPrefix(),
          s.getRedisTimeout(),
          s.getPredictionStreamMaxLen(),
          s.getSnapshotTtl());
    }
    return new InMemoryStateHub();
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  SharedLoad routerSharedLoad(StateBackend state, ReplicaId replica, RouterProperties props) {
    return state.load(replica.value(), props.getState().getLoadTtl().toMillis());
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  PredictionStore routerPredictionStore(StateBackend state, ReplicaId replica) {
    return state.predictions(replica.value());
  }

  @Bean
  @ConditionalOnMissingBean
  LoadTracker routerLoadTracker() {
    return new LoadTracker();
  }

  @Bean
  @ConditionalOnMissingBean
  RouterMetrics routerMetrics(ObjectProvider<MeterRegistry> meters) {
    return new RouterMetrics(meters.getIfAvailable(SimpleMeterRegistry::new));
  }

  /** The model runtimes; warm-started here so ingestion resumes after the snapshot. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  ModelRuntimes modelRuntimes(
      RegistryClient registry, RouterProperties props, StateBackend state, RouterMetrics metrics)
      throws IOException {
    Path cache =
        props.getHfCacheDir() != null
            ? Files.createDirectories(props.getHfCacheDir())
            : Files.createTempDirectory("sightline-router-hf-");
    RouterProperties.Index ix = props.getIndex();
    IndexConfig indexConfig =
        new IndexConfig(
            ix.getHostWeight(),
            ix.getDiskWeight(),
            ix.getExternalWeight(),
            ix.getPredictedEntryBudget(),
            ix.getReplayWindow());
    ModelRuntimes runtimes =
        new ModelRuntimes(
            registry,
            new ModelRuntimes.Options(
                indexConfig, props.isJournal(), cache, props.getDefaultBlockSize()));
    runtimes.fallbackListener((model, reason) -> metrics.fallback(reason));
    if (props.getState().isWarmStart()) {
      warmStart(runtimes, state);
    }
    runtimes.start();
    return runtimes;
  }

  private static void warmStart(ModelRuntimes runtimes, StateBackend state) {
    try {
      Optional<IndexSnapshot> newest = state.snapshots().newest();
      if (newest.isEmpty()) {
        log.info("warm start: no snapshot in {}, starting cold", state.describe());
        return;
      }
      long seq = runtimes.restore(newest.get().data());
      log.info(
          "warm start: restored snapshot of {} at stream seq {} ({} bytes)",
          newest.get().replicaId(),
          seq,
          newest.get().data().length);
    } catch (IOException | RuntimeException e) {
      log.warn("warm start failed, starting cold: {}", e.toString());
    }
  }

  @Bean
  @ConditionalOnMissingBean
  WorkerMetricsSource routerWorkerMetricsSource(ObjectProvider<LoadBoard> board) {
    LoadBoard b = board.getIfAvailable();
    if (b == null) {
      return WorkerMetricsSource.NONE;
    }
    return (worker, rank) ->
        b.fresh(worker, rank)
            .<WorkerMetrics>map(
                s -> {
                  long ageMs = (System.nanoTime() - s.scrapedAtNanos()) / 1_000_000L;
                  return new WorkerMetrics(
                      (int) Math.round(s.waiting()),
                      (int) Math.round(s.running()),
                      Double.isNaN(s.kvUsage()) ? 0.0 : s.kvUsage(),
                      System.currentTimeMillis() - ageMs);
                })
            .orElse(null);
  }

  @Bean
  @ConditionalOnMissingBean(RoutingService.class)
  RouterEngine routingService(
      RegistryClient registry,
      ModelRuntimes runtimes,
      LoadTracker tracker,
      SharedLoad shared,
      PredictionStore predictions,
      WorkerMetricsSource metricsSource,
      RouterMetrics metrics,
      ReplicaId replica,
      RouterProperties props) {
    RouterProperties.Selection s = props.getSelection();
    RouterConfig config =
        new RouterConfig(
            s.getOverlapScoreCredit(),
            s.getPrefillLoadScale(),
            s.getTemperature(),
            s.getDecodeActiveRequestWeight(),
            true,
            true,
            true,
            s.getApproximateTtl().toMillis() / 1000.0,
            s.getPredictedTtl().toMillis() / 1000.0,
            s.getWaitingQueueWeight(),
            s.getRunningRequestsWeight(),
            s.getKvUsageWeight(),
            s.getMetricsStaleAfter().toMillis() / 1000.0,
            s.getActiveRequestTtl().toMillis() / 1000.0);
    return new RouterEngine(
        registry,
        runtimes,
        tracker,
        shared,
        predictions,
        metricsSource,
        metrics,
        new RouterEngine.Settings(replica.value(), config, props.getState().isSharePredictions()));
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @ConditionalOnBean(RouterEngine.class)
  RouterStateLoop routerStateLoop(
      RouterEngine engine,
      ModelRuntimes runtimes,
      SharedLoad shared,
      PredictionStore predictions,
      StateBackend state,
      RouterMetrics metrics,
      ReplicaId replica,
      RouterProperties props) {
    return new RouterStateLoop(
        engine,
        runtimes,
        shared,
        predictions,
        state.snapshots(),
        metrics,
        replica.value(),
        props.getState().getSyncInterval(),
        props.getState().getSnapshotInterval());
  }

  @Bean
  @ConditionalOnBean(RouterStateLoop.class)
  SmartLifecycle routerStateLifecycle(RouterStateLoop loop) {
    return new SmartLifecycle() {
      private volatile boolean running;

      @Override
      public void start() {
        loop.start();
        running = true;
      }

      @Override
      public void stop() {
        loop.close();
        running = false;
      }

      @Override
      public boolean isRunning() {
        return running;
      }
    };
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
  RoutingController routingController(RoutingService routing) {
    return new RoutingController(routing);
  }
}
