package io.sightline.registry.store;

import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.Versioned;
import io.sightline.registry.model.WorkerInstance;
import java.util.List;

/** All cards and workers as of one store revision. */
public record Snapshot(
    long revision, List<Versioned<ModelCard>> models, List<Versioned<WorkerInstance>> workers) {
  public Snapshot {
    models = List.copyOf(models);
    workers = List.copyOf(workers);
  }
}
