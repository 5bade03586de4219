package io.sightline.standalone;

import io.sightline.prompt.hf.ModelBundles;
import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.HfSource;
import io.sightline.registry.model.KvEventSource;
import io.sightline.registry.model.MediaDecoder;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.RoutingMode;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.service.RegistryService;
import io.sightline.registry.store.RegistryStore;
import io.sightline.routing.expansion.MmScheme;
import io.sightline.sim.Dialect;
import io.sightline.sim.SimFleet;
import io.sightline.sim.SimOptions;
import io.sightline.sim.SimulatedWorker;
import io.sightline.sim.engine.TimingModel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/**
 * The embedded default's fleet: unpacks the bundled Qwen2.5-VL files, starts the simulated vLLM
 * workers (real HTTP, real ZMQ KV events, real prefix caches) and registers the default model card
 * and one static worker instance per simulated worker in the in-process registry. From there the
 * router discovers the workers and subscribes to their events exactly as it would for real vLLM
 * engines.
 */
@Configuration(proxyBeanMethods = false)
class StandaloneFleet {
  private static final Logger log = LoggerFactory.getLogger(StandaloneFleet.class);

  /** The directory with the default model's Hugging Face files. */
  @Bean
  DefaultModel sightlineDefaultModel(StandaloneProperties props) {
    Path dir =
        props.getModelDir() != null
            ? props.getModelDir()
            : ModelBundles.unpack(
                StandaloneFleet.class, "/models/Qwen2.5-VL-7B-Instruct", props.getModelCacheDir());
    return new DefaultModel(props.getModelName(), dir.toAbsolutePath());
  }

  @Bean(destroyMethod = "close")
  SimFleet sightlineSimFleet(StandaloneProperties props, DefaultModel model) {
    if (props.getWorkers() <= 0) {
      return null;
    }
    SimOptions template =
        SimOptions.defaults()
            .withDialect(Dialect.VLLM)
            .withServedModelName(model.name())
            .withModelDir(model.directory())
            .withBlockSize(props.getBlockSize())
            .withNumBlocks(props.getWorkerNumBlocks())
            .withTiming(TimingModel.DEFAULT.withSpeedup(props.getWorkerSpeedup()))
            .withPort(props.getWorkerBasePort());
    try {
      return SimFleet.start(template, props.getWorkers());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the simulated workers", e);
    }
  }

  /** Registers the default model and the simulated workers once the registry is up. */
  @Bean
  @Order(0)
  ApplicationRunner sightlineStandaloneRegistration(
      StandaloneProperties props,
      DefaultModel model,
      ObjectProvider<SimFleet> fleet,
      RegistryService registry) {
    return (ApplicationArguments args) -> {
      if (props.isRegisterDefaultModel()) {
        registry.putModel(defaultCard(props, model), RegistryStore.ANY_REVISION);
      }
      SimFleet workers = fleet.getIfAvailable();
      if (workers == null) {
        return;
      }
      for (int i = 0; i < workers.size(); i++) {
        registry.putWorker(
            instance(props, model, workers.get(i), i), RegistryStore.ANY_REVISION, false);
      }
      log.info("registered model {} and {} simulated vLLM workers", model.name(), workers.size());
    };
  }

  static ModelCard defaultCard(StandaloneProperties props, DefaultModel model) {
    MediaDecoder decoder =
        props.isMediaDecoder()
            ? new MediaDecoder(
                true, MediaDecoder.DEFAULT_MAX_BYTES, MediaDecoder.DEFAULT_MAX_PIXELS)
            : MediaDecoder.disabled();
    return new ModelCard(
            ModelCard.SCHEMA_VERSION,
            model.name(),
            List.of(),
            BackendKind.VLLM,
            HfSource.directory(model.directory().toString()),
            null,
            null,
            props.getBlockSize(),
            MmScheme.GEN2,
            decoder,
            RoutingMode.PRECISE,
            List.of(),
            null)
        .withDefaults();
  }

  static WorkerInstance instance(
      StandaloneProperties props, DefaultModel model, SimulatedWorker worker, int index) {
    String base = worker.baseUrl();
    return new WorkerInstance(
            ModelCard.SCHEMA_VERSION,
            "sim-" + index,
            model.name(),
            model.name(),
            base,
            BackendKind.VLLM,
            1,
            props.getBlockSize(),
            KvEventSource.zmq(worker.eventEndpoint(), worker.replayEndpoint()),
            base + "/metrics",
            Map.of("kind", "simulated"),
            null,
            null)
        .withDefaults();
  }

  /** The default model's served name and the directory of its Hugging Face files. */
  record DefaultModel(String name, Path directory) {}
}
