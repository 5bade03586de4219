package io.sightline.router.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sightline.registry.client.LocalRegistryClient;
import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.store.InMemoryRegistryStore;
import io.sightline.registry.store.RegistryStore;
import io.sightline.router.model.ModelRuntimes;
import io.sightline.router.state.PredictionStore;
import io.sightline.router.state.SharedLoad;
import io.sightline.router.state.StateBackend;
import io.sightline.routing.index.IndexConfig;
import io.sightline.routing.selection.LoadTracker;
import io.sightline.routing.selection.RouterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** One router replica over real pieces: in-memory registry, model runtimes, index, selector. */
final class RouterFixture implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  final RegistryStore store;
  final LocalRegistryClient registry;
  final ModelRuntimes runtimes;
  final LoadTracker tracker = new LoadTracker();
  final SharedLoad shared;
  final PredictionStore predictions;
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  final RouterMetrics metrics = new RouterMetrics(meters);
  final RouterEngine engine;
  final String replicaId;

  RouterFixture(RegistryStore store, StateBackend state, String replicaId) throws Exception {
    this.store = store;
    this.replicaId = replicaId;
    this.registry =
        new LocalRegistryClient(
            store, Duration.ofMillis(50), Duration.ofMillis(500), Duration.ofMillis(200));
    Path cache = Files.createTempDirectory("router-hf-");
    this.runtimes =
        new ModelRuntimes(
            registry, new ModelRuntimes.Options(IndexConfig.DEFAULTS, true, cache, 16));
    runtimes.fallbackListener((m, reason) -> metrics.fallback(reason));
    runtimes.start();
    this.shared = state.load(replicaId, 5_000);
    this.predictions = state.predictions(replicaId);
    this.engine =
        new RouterEngine(
            registry,
            runtimes,
            tracker,
            shared,
            predictions,
            WorkerMetricsSource.NONE,
            metrics,
            new RouterEngine.Settings(replicaId, RouterConfig.DEFAULTS, true));
  }

  static RegistryStore storeWith(ModelCard card, String... workerIds) {
    InMemoryRegistryStore s = new InMemoryRegistryStore();
    s.putModel(card, RegistryStore.ANY_REVISION);
    for (String w : workerIds) {
      s.putWorker(
          WorkerInstance.of(
              w, card.name(), "http://" + w + ":8000", card.backend(), card.kvBlockSize()),
          RegistryStore.ANY_REVISION);
    }
    return s;
  }

  static ModelCard textCard(String name, int blockSize) {
    return ModelCard.of(name, BackendKind.VLLM, blockSize);
  }

  /** Syncs shared state both ways (what the periodic state loop does). */
  void sync() {
    shared.sync(engine.localLoad());
    long now = System.currentTimeMillis();
    for (var p : predictions.pollOthers()) {
      engine.applyRemotePrediction(p, now);
    }
  }

  static JsonNode json(String s) {
    try {
      return JSON.readTree(s);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  @Override
  public void close() {
    shared.close();
    predictions.close();
    runtimes.close();
    registry.close();
  }
}
