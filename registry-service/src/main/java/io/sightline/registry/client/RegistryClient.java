package io.sightline.registry.client;

import io.sightline.registry.model.ApiKey;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.WorkerInstance;
import java.util.List;
import java.util.Optional;

/**
 * Read side of the registry for routers and gateways: a local cache of every model card and worker
 * instance, kept current by a watch on the store (in-process, {@link LocalRegistryClient}) or on
 * the registry's SSE change stream ({@link RemoteRegistryClient}).
 *
 * <p>Reads never block on the network and never fail because the registry or etcd is down: they
 * answer from the last known fleet ({@link #connected()} says whether it is live). On reconnection
 * the client resumes from its last revision, or reloads everything when the store no longer has
 * that history, and emits the differences to listeners.
 */
public interface RegistryClient extends AutoCloseable {

  /** All model cards, sorted by name. */
  List<ModelCard> models();

  /** The card whose name or alias is {@code nameOrAlias}. */
  Optional<ModelCard> model(String nameOrAlias);

  /** The workers of the model named (or aliased) {@code nameOrAlias}, sorted by id. */
  List<WorkerInstance> workers(String nameOrAlias);

  /** All workers, sorted by id. */
  List<WorkerInstance> workers();

  /** One worker by id. */
  Optional<WorkerInstance> worker(String id);

  /**
   * The gateway API key records (digests and limits, never keys), sorted by name. Defaults to none
   * so that test doubles need not implement it.
   */
  default List<ApiKey> apiKeys() {
    return List.of();
  }

  /** The store revision the cache reflects (0 before the first load). */
  long revision();

  /** True while the cache is fed by a live watch. */
  boolean connected();

  /**
   * Registers a listener for changes after this call. The current fleet is available from the
   * getters; listeners are not replayed history.
   *
   * @return a handle that removes the listener when closed
   */
  AutoCloseable addListener(RegistryListener listener);

  /** Stops watching; the cache keeps its last contents. */
  @Override
  void close();
}
