package io.sightline.gateway.catalog;

import io.sightline.registry.client.RegistryClient;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.WorkerInstance;
import java.util.List;
import java.util.Optional;

/**
 * {@link ModelCatalog} over the registry's client (in-process or remote; its reads answer from a
 * local cache and never block on the network).
 */
public final class RegistryModelCatalog implements ModelCatalog {
  private final RegistryClient registry;
  private final long startedAt = System.currentTimeMillis() / 1000;

  public RegistryModelCatalog(RegistryClient registry) {
    this.registry = registry;
  }

  @Override
  public List<ServedModel> models() {
    return registry.models().stream().map(this::served).toList();
  }

  @Override
  public Optional<ServedModel> find(String name) {
    return registry.model(name).map(this::served);
  }

  @Override
  public Optional<WorkerEndpoint> worker(String workerId) {
    return registry
        .worker(workerId)
        .filter(w -> w.baseUrl() != null)
        .map(RegistryModelCatalog::endpoint);
  }

  private static WorkerEndpoint endpoint(WorkerInstance w) {
    return new WorkerEndpoint(w.id(), w.baseUrl(), w.dialect() == null ? "vllm" : w.dialect().id());
  }

  private ServedModel served(ModelCard card) {
    boolean decoder = card.mediaDecoder() != null && card.mediaDecoder().isEnabled();
    return new ServedModel(
        card.name(), card.backend() == null ? "vllm" : card.backend().id(), decoder, startedAt);
  }
}
