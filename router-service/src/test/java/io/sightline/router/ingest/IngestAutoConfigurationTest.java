package io.sightline.router.ingest;

import static io.sightline.router.ingest.IngestFixtures.await;
import static io.sightline.router.ingest.IngestFixtures.vllmBatch;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sightline.adapter.vllm.FakeVllmPublisher;
import io.sightline.registry.client.RegistryClient;
import io.sightline.router.model.KvEventSink;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@Timeout(60)
class IngestAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(IngestAutoConfiguration.class));

  @Test
  void embeddedDefaultsBridgeRegisteredWorkersIntoTheSink() throws Exception {
    IngestFixtures.StaticRegistry registry = new IngestFixtures.StaticRegistry();
    IngestFixtures.RecordingSink sink = new IngestFixtures.RecordingSink();
    try (FakeVllmPublisher pub = new FakeVllmPublisher(100)) {
      pub.publish(vllmBatch(7), true);
      registry.put(VllmIngestionTest.vllmWorker("w1", pub));
      runner
          .withBean(RegistryClient.class, () -> registry)
          .withBean(KvEventSink.class, () -> sink)
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
          .run(
              ctx -> {
                assertThat(ctx).hasSingleBean(InProcessKvEventBus.class);
                assertThat(ctx).hasSingleBean(LoadBoard.class);
                await(() -> sink.events.size() == 1, Duration.ofSeconds(10));
                assertThat(sink.trace()).containsExactly("7");
                MeterRegistry meters = ctx.getBean(MeterRegistry.class);
                assertThat(
                        meters
                            .get("sightline.events.applied")
                            .tag("outcome", "applied")
                            .counter()
                            .count())
                    .isEqualTo(1);
              });
    }
  }

  @Test
  void withoutASinkNothingStartsAndBadSettingsFailClearly() {
    runner.run(ctx -> assertThat(ctx).hasNotFailed().hasSingleBean(KvEventBus.class));
    runner
        .withPropertyValues("sightline.ingest.scrape.interval=0s")
        .run(
            ctx ->
                assertThat(ctx)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("sightline.ingest.scrape.interval"));
    runner
        .withPropertyValues("sightline.ingest.enabled=false")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(KvEventBus.class));
  }
}
