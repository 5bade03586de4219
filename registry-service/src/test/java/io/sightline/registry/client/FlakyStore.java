package io.sightline.registry.client;

import io.sightline.registry.model.ApiKey;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.Versioned;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.store.RegistryStore;
import io.sightline.registry.store.Snapshot;
import io.sightline.registry.store.StoreHealth;
import io.sightline.registry.store.StoreUnavailableException;
import io.sightline.registry.store.StoreWatch;
import io.sightline.registry.store.StoreWatcher;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A client's view of a store that can be cut off: while {@link #breakLink()} is in effect every
 * call fails and open watches get {@code onError}, but writes through {@link #backend()} (another
 * registry instance, still connected) keep happening.
 */
final class FlakyStore implements RegistryStore {
  private final RegistryStore backend;
  private final List<Runnable> failWatches = new CopyOnWriteArrayList<>();
  private volatile boolean broken;

  FlakyStore(RegistryStore backend) {
    this.backend = backend;
  }

  RegistryStore backend() {
    return backend;
  }

  void breakLink() {
    broken = true;
    failWatches.forEach(Runnable::run);
    failWatches.clear();
  }

  void heal() {
    broken = false;
  }

  private void check() {
    if (broken) {
      throw new StoreUnavailableException("link down", null);
    }
  }

  @Override
  public Snapshot snapshot() {
    check();
    return backend.snapshot();
  }

  @Override
  public Optional<Versioned<ModelCard>> model(String name) {
    check();
    return backend.model(name);
  }

  @Override
  public Optional<Versioned<WorkerInstance>> worker(String id) {
    check();
    return backend.worker(id);
  }

  @Override
  public long putModel(ModelCard card, long expectedRevision) {
    check();
    return backend.putModel(card, expectedRevision);
  }

  @Override
  public long deleteModel(String name, long expectedRevision) {
    check();
    return backend.deleteModel(name, expectedRevision);
  }

  @Override
  public long putWorker(WorkerInstance worker, long expectedRevision) {
    check();
    return backend.putWorker(worker, expectedRevision);
  }

  @Override
  public long deleteWorker(String id, long expectedRevision) {
    check();
    return backend.deleteWorker(id, expectedRevision);
  }

  @Override
  public Optional<Versioned<ApiKey>> apiKey(String name) {
    check();
    return backend.apiKey(name);
  }

  @Override
  public long putApiKey(ApiKey key, long expectedRevision) {
    check();
    return backend.putApiKey(key, expectedRevision);
  }

  @Override
  public long deleteApiKey(String name, long expectedRevision) {
    check();
    return backend.deleteApiKey(name, expectedRevision);
  }

  @Override
  public boolean keepAlive(String workerId) {
    check();
    return backend.keepAlive(workerId);
  }

  @Override
  public StoreWatch watch(long fromRevision, StoreWatcher watcher) {
    check();
    StoreWatch inner = backend.watch(fromRevision, watcher);
    failWatches.add(
        () -> {
          inner.close();
          watcher.onError(new StoreUnavailableException("link down", null));
        });
    return inner;
  }

  @Override
  public StoreHealth health() {
    return broken ? new StoreHealth(false, Map.of("store", "flaky")) : backend.health();
  }

  @Override
  public void close() {
    backend.close();
  }
}
