package io.sightline.bench.registry;

import io.sightline.registry.client.LocalRegistryClient;
import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.model.WorkerState;
import io.sightline.registry.store.InMemoryRegistryStore;
import io.sightline.registry.store.RegistryStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the router and gateway pay per request to read the fleet from a {@link LocalRegistryClient}
 * (lock-free reads of an immutable view), and what one fleet change costs the client (the view is
 * rebuilt per change, so this grows with the fleet). Fleet: {@code models} cards with one alias
 * each and {@code workersPerModel} workers each.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar RegistryClientBenchmark -f 1 -wi 2 -i 3 -w
 * 1s -r 1s}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RegistryClientBenchmark {
  @Param({"50"})
  int models;

  @Param({"20"})
  int workersPerModel;

  InMemoryRegistryStore store;
  LocalRegistryClient client;
  String alias;
  long flips;

  @Setup(Level.Trial)
  public void setUp() {
    store = new InMemoryRegistryStore();
    for (int m = 0; m < models; m++) {
      store.putModel(
          ModelCard.of("model-" + m, BackendKind.VLLM, 16).withAliases(List.of("alias-" + m)),
          RegistryStore.ANY_REVISION);
      for (int w = 0; w < workersPerModel; w++) {
        store.putWorker(
            WorkerInstance.of(
                "w-" + m + "-" + w, "model-" + m, "http://10.0.0.1:8000", BackendKind.VLLM, 16),
            RegistryStore.ANY_REVISION);
      }
    }
    client = new LocalRegistryClient(store);
    alias = "alias-" + (models / 2);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    client.close();
    store.close();
  }

  /** Card lookup by alias (the gateway, per request). */
  @Benchmark
  public Optional<ModelCard> modelByAlias() {
    return client.model(alias);
  }

  /** Worker list of one model by alias (the router, per request). */
  @Benchmark
  public List<WorkerInstance> workersByAlias() {
    return client.workers(alias);
  }

  /**
   * One worker state change written to the store and applied by the client (store write, watch
   * dispatch, view rebuild), measured end to end until the client's revision reflects it.
   */
  @Benchmark
  public long workerChangeVisibleToClient() {
    WorkerState s = (flips++ & 1) == 0 ? WorkerState.DRAINING : WorkerState.READY;
    long rev =
        store.putWorker(
            WorkerInstance.of("w-0-0", "model-0", "http://10.0.0.1:8000", BackendKind.VLLM, 16)
                .withState(s),
            RegistryStore.ANY_REVISION);
    while (client.revision() < rev) {
      Thread.onSpinWait();
    }
    return rev;
  }
}
