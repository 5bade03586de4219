package io.sightline.registry.store;

import io.sightline.registry.model.ApiKey;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.WorkerInstance;

/** One change in a {@link RegistryStore}, at a store revision. */
public sealed interface StoreEvent {
  long revision();

  /** A card was written. */
  record ModelPut(ModelCard card, long revision) implements StoreEvent {}

  /** A card was deleted; {@code previous} is its last value when the backend knows it. */
  record ModelDeleted(String name, ModelCard previous, long revision) implements StoreEvent {}

  /** A worker was written. */
  record WorkerPut(WorkerInstance worker, long revision) implements StoreEvent {}

  /** A worker was deleted or its lease lapsed; {@code previous} is its last value when known. */
  record WorkerDeleted(String id, WorkerInstance previous, long revision) implements StoreEvent {}

  /** An API key record was written. */
  record ApiKeyPut(ApiKey key, long revision) implements StoreEvent {}

  /** An API key record was deleted; {@code previous} is its last value when known. */
  record ApiKeyDeleted(String name, ApiKey previous, long revision) implements StoreEvent {}
}
