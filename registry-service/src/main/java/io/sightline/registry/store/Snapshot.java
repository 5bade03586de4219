package io.sightline.registry.store;

import io.sightline.registry.model.ApiKey;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.Versioned;
import io.sightline.registry.model.WorkerInstance;
import java.util.List;

/** All cards, workers and API keys as of one store revision. */
public record Snapshot(
    long revision,
    List<Versioned<ModelCard>> models,
    List<Versioned<WorkerInstance>> workers,
    List<Versioned<ApiKey>> apiKeys) {
  public Snapshot {
    models = List.copyOf(models);
    workers = List.copyOf(workers);
    apiKeys = apiKeys == null ? List.of() : List.copyOf(apiKeys);
  }

  /** A snapshot without API keys. */
  public Snapshot(
      long revision, List<Versioned<ModelCard>> models, List<Versioned<WorkerInstance>> workers) {
    this(revision, models, workers, List.of());
  }
}
