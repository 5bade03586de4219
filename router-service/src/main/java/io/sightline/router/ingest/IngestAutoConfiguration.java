package io.sightline.router.ingest;

import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.sightline.registry.client.RegistryClient;
import io.sightline.router.model.KvEventSink;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires event ingestion into a router app (the router service, the standalone app). Every bean is
 * {@link ConditionalOnMissingBean}. The {@link EventIngestion} itself starts as a {@link
 * SmartLifecycle} once the context is refreshed, with the app's {@link KvEventSink} (the router
 * state) and {@link RegistryClient}; without either, ingestion stays off and says so in the log.
 *
 * <ul>
 *   <li>{@code sightline.ingest.plane=embedded} (default): {@link InProcessKvEventBus}; {@code
 *       nats}: {@link NatsKvEventBus} on {@code sightline.ingest.nats.*}.
 *   <li>{@code sightline.ingest.ownership=all} (default) or {@code etcd} ({@link
 *       EtcdBridgeOwnership} on {@code sightline.ingest.etcd.*}).
 *   <li>{@link LoadBoard} (scraped load with staleness) and {@link LoadScraper} ({@code
 *       sightline.ingest.scrape.*}).
 * </ul>
 */
@AutoConfiguration
@EnableConfigurationProperties(IngestProperties.class)
@ConditionalOnProperty(
    prefix = "sightline.ingest",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
public class IngestAutoConfiguration {

  private static final Logger LOG = Logger.getLogger(IngestAutoConfiguration.class.getName());

  @Bean
  @ConditionalOnMissingBean
  IngestMetrics ingestMetrics(ObjectProvider<MeterRegistry> registry) {
    return new IngestMetrics(registry.getIfAvailable(SimpleMeterRegistry::new));
  }

  @Bean
  @ConditionalOnMissingBean
  LoadBoard loadBoard(IngestProperties props) {
    props.validate();
    return new LoadBoard(props.getScrape().getStaleAfter());
  }

  /** The NATS plane. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(prefix = "sightline.ingest", name = "plane", havingValue = "nats")
  static class NatsPlane {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    Connection sightlineNatsConnection(IngestProperties props)
        throws IOException, InterruptedException {
      Options options =
          new Options.Builder()
              .servers(props.getNats().getUrl().split(","))
              .connectionName("sightline-router-" + props.effectiveNodeId())
              .maxReconnects(-1)
              .reconnectWait(Duration.ofMillis(500))
              .errorListener(new NatsErrorListener())
              .build();
      return Nats.connect(options);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    KvEventBus kvEventBus(Connection connection, IngestProperties props)
        throws EventPlaneException {
      IngestProperties.Nats n = props.getNats();
      return new NatsKvEventBus(
          connection,
          new NatsKvEventBus.Settings(
              n.getStream(),
              n.getSubjectPrefix(),
              n.getMaxAge(),
              n.getMaxBytes(),
              n.isMemoryStorage()));
    }
  }

  /** The embedded plane. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(
      prefix = "sightline.ingest",
      name = "plane",
      havingValue = "embedded",
      matchIfMissing = true)
  static class EmbeddedPlane {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    KvEventBus kvEventBus() {
      return new InProcessKvEventBus();
    }
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  BridgeOwnership bridgeOwnership(IngestProperties props) {
    if (props.getOwnership() == IngestProperties.Ownership.ETCD) {
      Client client =
          Client.builder().endpoints(props.getEtcd().getEndpoints().toArray(String[]::new)).build();
      return new EtcdBridgeOwnership(
          client,
          true,
          props.getEtcd().getKeyPrefix(),
          props.effectiveNodeId(),
          props.getEtcd().getLeaseTtl());
    }
    return BridgeOwnership.all();
  }

  @Bean
  SmartLifecycle sightlineEventIngestion(
      IngestProperties props,
      ObjectProvider<RegistryClient> registry,
      ObjectProvider<KvEventSink> sink,
      KvEventBus bus,
      BridgeOwnership ownership,
      LoadBoard board,
      IngestMetrics metrics) {
    return new SmartLifecycle() {
      private EventIngestion ingestion;

      @Override
      public void start() {
        RegistryClient r = registry.getIfAvailable();
        KvEventSink s = sink.getIfAvailable();
        if (r == null || s == null) {
          LOG.log(
              Level.WARNING,
              "KV event ingestion not started: no {0} bean",
              r == null ? "RegistryClient" : "KvEventSink");
          return;
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(props.getHttpTimeout()).build();
        LoadScraper scraper =
            props.getScrape().isEnabled()
                ? new LoadScraper(
                    board,
                    http,
                    metrics,
                    props.getScrape().getInterval(),
                    props.getScrape().getTimeout())
                : null;
        ingestion =
            new EventIngestion(
                r,
                bus,
                s,
                ownership,
                scraper,
                metrics,
                new EventIngestion.Settings(
                    props.getReconcileInterval(),
                    props.getReplayTimeout(),
                    props.getTrtPollInterval(),
                    props.getHttpTimeout()),
                http);
        try {
          ingestion.start();
        } catch (EventPlaneException e) {
          throw new IllegalStateException("cannot start KV event ingestion: " + e.getMessage(), e);
        }
      }

      @Override
      public void stop() {
        if (ingestion != null) {
          ingestion.close();
          ingestion = null;
        }
      }

      @Override
      public boolean isRunning() {
        return ingestion != null;
      }

      @Override
      public int getPhase() {
        // after the web server and the router state (default phase), before nothing else
        return SmartLifecycle.DEFAULT_PHASE - 1024;
      }
    };
  }
}
