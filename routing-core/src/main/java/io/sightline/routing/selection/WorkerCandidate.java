package io.sightline.routing.selection;

import io.sightline.routing.index.WorkerKey;
import java.util.Objects;
import java.util.Set;

/**
 * One worker rank that could serve a request, as the registry and metrics see it.
 *
 * @param worker worker id and data-parallel rank
 * @param healthy whether its lease/health check is good
 * @param draining whether it is being drained (no new requests)
 * @param models served model names (empty = any)
 * @param loraAdapters LoRA adapters it has loaded
 * @param maxActiveRequests capacity in concurrent requests, 0 = unlimited
 * @param metrics latest scraped metrics, or {@code null}
 */
public record WorkerCandidate(
    WorkerKey worker,
    boolean healthy,
    boolean draining,
    Set<String> models,
    Set<String> loraAdapters,
    int maxActiveRequests,
    WorkerMetrics metrics) {
  public WorkerCandidate {
    Objects.requireNonNull(worker, "worker");
    models = models == null ? Set.of() : Set.copyOf(models);
    loraAdapters = loraAdapters == null ? Set.of() : Set.copyOf(loraAdapters);
  }

  /** A healthy, unlimited candidate serving {@code model}. */
  public static WorkerCandidate of(String workerId, int dpRank, String model) {
    return new WorkerCandidate(
        new WorkerKey(workerId, dpRank), true, false, Set.of(model), Set.of(), 0, null);
  }

  public WorkerCandidate withMetrics(WorkerMetrics m) {
    return new WorkerCandidate(
        worker, healthy, draining, models, loraAdapters, maxActiveRequests, m);
  }
}
