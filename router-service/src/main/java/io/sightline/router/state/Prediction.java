package io.sightline.router.state;

import io.sightline.routing.index.WorkerKey;
import java.util.Arrays;

/**
 * A predicted cache entry from a routing decision: {@code worker} is expected to hold the request's
 * prefix — the blocks whose local hashes are {@code localHashes}, in order from block 0 — until
 * {@code expiresAtMillis} (wall clock) or until KV events confirm them. Replicas exchange these so
 * each one's index ({@code KvIndex.predict}) knows where the others just sent a prefix
 * (../shared/reference/dynamo.md §3 "Approximate mode", llmd.md §3 "Speculative entries").
 */
public record Prediction(
    String replicaId, String model, WorkerKey worker, long[] localHashes, long expiresAtMillis) {
  public Prediction {
    if (replicaId == null || model == null || worker == null || localHashes == null) {
      throw new IllegalArgumentException("replicaId, model, worker and localHashes are required");
    }
    localHashes = localHashes.clone();
  }

  @Override
  public long[] localHashes() {
    return localHashes.clone();
  }

  /** Number of predicted blocks. */
  public int blocks() {
    return localHashes.length;
  }

  /** Block {@code i}'s local hash, without copying. */
  public long localHash(int i) {
    return localHashes[i];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Prediction p
        && p.replicaId.equals(replicaId)
        && p.model.equals(model)
        && p.worker.equals(worker)
        && p.expiresAtMillis == expiresAtMillis
        && Arrays.equals(p.localHashes, localHashes);
  }

  @Override
  public int hashCode() {
    return 31 * worker.hashCode() + Arrays.hashCode(localHashes);
  }

  @Override
  public String toString() {
    return "Prediction[" + replicaId + " " + model + " " + worker + " blocks=" + blocks() + "]";
  }
}
