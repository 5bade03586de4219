package io.sightline.registry.client;

import io.sightline.registry.model.ApiKey;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.WorkerInstance;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The read side shared by {@link LocalRegistryClient} and {@link RemoteRegistryClient}: every read
 * answers from the {@link RegistryCache}, and the connection state is announced to listeners when
 * it changes. Subclasses feed the cache and call {@link #setConnected}.
 */
abstract class CachingRegistryClient implements RegistryClient {
  final RegistryCache cache = new RegistryCache();
  private volatile boolean connected;

  @Override
  public List<ModelCard> models() {
    return cache.models();
  }

  @Override
  public Optional<ModelCard> model(String nameOrAlias) {
    return cache.model(nameOrAlias);
  }

  @Override
  public List<WorkerInstance> workers(String nameOrAlias) {
    return cache.workers(nameOrAlias);
  }

  @Override
  public List<WorkerInstance> workers() {
    return cache.workers();
  }

  @Override
  public Optional<WorkerInstance> worker(String id) {
    return cache.worker(id);
  }

  @Override
  public List<ApiKey> apiKeys() {
    return cache.apiKeys();
  }

  @Override
  public long revision() {
    return cache.revision();
  }

  @Override
  public boolean connected() {
    return connected;
  }

  @Override
  public AutoCloseable addListener(RegistryListener listener) {
    return cache.addListener(listener);
  }

  /** Records the connection state; a change is emitted to listeners as ConnectionChanged. */
  final void setConnected(boolean now) {
    if (connected != now) {
      connected = now;
      cache.emit(List.of(new RegistryEvent.ConnectionChanged(now, cache.revision())));
    }
  }

  /** The next reconnection delay: twice {@code delay}, at most {@code max}. */
  static Duration doubled(Duration delay, Duration max) {
    return delay.multipliedBy(2).compareTo(max) > 0 ? max : delay.multipliedBy(2);
  }
}
