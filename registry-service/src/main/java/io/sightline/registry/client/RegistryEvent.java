package io.sightline.registry.client;

import io.sightline.registry.model.ApiKey;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.WorkerInstance;

/**
 * A change to the fleet as a {@link RegistryClient} sees it. {@code revision} is the store revision
 * of the change (monotonic), so listeners can order and de-duplicate.
 */
public sealed interface RegistryEvent {

  /** The store revision at which this change happened. */
  long revision();

  /** A model card was created or updated. {@code previous} is null on create. */
  record ModelPut(ModelCard card, ModelCard previous, long revision) implements RegistryEvent {}

  /** A model card was removed. */
  record ModelRemoved(ModelCard card, long revision) implements RegistryEvent {}

  /** A worker registered or changed (e.g. ready → draining). {@code previous} is null on create. */
  record WorkerPut(WorkerInstance worker, WorkerInstance previous, long revision)
      implements RegistryEvent {}

  /** A worker was removed, deregistered or its lease lapsed. */
  record WorkerRemoved(WorkerInstance worker, long revision) implements RegistryEvent {}

  /** An API key record was created or changed. {@code previous} is null on create. */
  record ApiKeyPut(ApiKey key, ApiKey previous, long revision) implements RegistryEvent {}

  /** An API key record was removed. */
  record ApiKeyRemoved(ApiKey key, long revision) implements RegistryEvent {}

  /**
   * The client lost track (reconnected past the store's retained history) and reloaded the whole
   * fleet. Individual put/removed events for the differences were emitted before this one.
   */
  record Resynced(long revision) implements RegistryEvent {}

  /** The client's connection to the registry went down ({@code connected=false}) or came back. */
  record ConnectionChanged(boolean connected, long revision) implements RegistryEvent {}
}
