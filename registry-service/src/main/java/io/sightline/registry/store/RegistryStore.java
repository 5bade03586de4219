package io.sightline.registry.store;

import io.sightline.registry.model.ApiKey;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.Versioned;
import io.sightline.registry.model.WorkerInstance;
import java.util.Optional;

/**
 * Storage SPI for model cards and worker instances: one key per card and per worker, a store-wide
 * monotonic revision, conditional writes, leases for self-registered workers and a resumable watch.
 * It is modelled on etcd's v3 API (revisions, leases, watch from revision) so that {@link
 * EtcdRegistryStore} is a thin mapping and {@link InMemoryRegistryStore} imitates it; both pass the
 * same contract tests ({@code RegistryStoreContract}).
 *
 * <p>Only storage concerns live here. Business rules (a worker's model must exist, block sizes must
 * agree, aliases are unique) are checked by {@code RegistryService} before writing.
 *
 * <p>Revision arguments: {@link #ANY_REVISION} writes unconditionally, {@link #MUST_NOT_EXIST}
 * creates only, any positive value updates only if the entry's current revision equals it;
 * otherwise {@link RevisionConflictException}. Every method may throw {@link
 * StoreUnavailableException} when the backend cannot be reached.
 */
public interface RegistryStore extends AutoCloseable {

  /** Unconditional write. */
  long ANY_REVISION = -1;

  /** Create-only write: fails when the entry exists. */
  long MUST_NOT_EXIST = 0;

  /** Every card, worker and API key plus the revision they are consistent at. */
  Snapshot snapshot();

  /** One card by exact name. */
  Optional<Versioned<ModelCard>> model(String name);

  /** One worker by id. */
  Optional<Versioned<WorkerInstance>> worker(String id);

  /**
   * Writes a card.
   *
   * @return the new revision of the card
   */
  long putModel(ModelCard card, long expectedRevision);

  /**
   * Deletes a card.
   *
   * @return the revision of the deletion
   * @throws NotFoundException when there is no such card
   */
  long deleteModel(String name, long expectedRevision);

  /**
   * Writes a worker. When {@link WorkerInstance#leaseTtlSeconds()} is set the entry is bound to a
   * fresh lease of that TTL and disappears unless {@link #keepAlive} is called within it; otherwise
   * it is static.
   *
   * @return the new revision of the worker
   */
  long putWorker(WorkerInstance worker, long expectedRevision);

  /**
   * Deletes a worker.
   *
   * @return the revision of the deletion
   * @throws NotFoundException when there is no such worker
   */
  long deleteWorker(String id, long expectedRevision);

  /**
   * Refreshes a leased worker's lease to its full TTL.
   *
   * @return false when the worker is gone (lease lapsed or deleted): it must register again; true
   *     for a live leased worker and for a static one (nothing to refresh)
   */
  boolean keepAlive(String workerId);

  /** One API key record by name. */
  Optional<Versioned<ApiKey>> apiKey(String name);

  /**
   * Writes an API key record (the digest, never the key).
   *
   * @return the new revision of the record
   */
  long putApiKey(ApiKey key, long expectedRevision);

  /**
   * Deletes an API key record.
   *
   * @return the revision of the deletion
   * @throws NotFoundException when there is no such record
   */
  long deleteApiKey(String name, long expectedRevision);

  /**
   * Streams changes with revision &ge; {@code fromRevision} (pass {@code snapshot().revision() + 1}
   * to follow a snapshot). When that history is gone (compacted), {@link StoreWatcher#onCompacted}
   * is called once and the watch ends: reload a snapshot and watch again. On a backend failure
   * {@link StoreWatcher#onError} is called and the watch ends; the caller resumes from the revision
   * after the last one it saw.
   */
  StoreWatch watch(long fromRevision, StoreWatcher watcher);

  /** Checks the backend; never throws. */
  StoreHealth health();

  /** Releases connections and timers. */
  @Override
  void close();
}
