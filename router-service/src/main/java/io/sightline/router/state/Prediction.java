package io.sightline.router.state;

import java.util.Arrays;

/**
 * A predicted cache entry: a routing decision says {@code worker} will hold the blocks whose
 * chained sequence hashes are {@code sequenceHashes} until {@code expiresAtMillis} (or until a KV
 * event confirms them). Sequence hashes are position-aware (each one chains its prefix), so a
 * prediction matches only the same prefix. See ../shared/reference/dynamo.md §3 "Approximate mode"
 * and ../shared/reference/llmd.md §3 "Speculative entries".
 */
public record Prediction(
    String replicaId, WorkerKey worker, long[] sequenceHashes, long expiresAtMillis) {
  public Prediction {
    sequenceHashes = sequenceHashes.clone();
  }

  @Override
  public long[] sequenceHashes() {
    return sequenceHashes.clone();
  }

  /** Number of predicted blocks. */
  public int blocks() {
    return sequenceHashes.length;
  }

  /** Block {@code i}'s sequence hash, without copying. */
  public long sequenceHash(int i) {
    return sequenceHashes[i];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Prediction p
        && p.replicaId.equals(replicaId)
        && p.worker.equals(worker)
        && p.expiresAtMillis == expiresAtMillis
        && Arrays.equals(p.sequenceHashes, sequenceHashes);
  }

  @Override
  public int hashCode() {
    return 31 * worker.hashCode() + Arrays.hashCode(sequenceHashes);
  }

  @Override
  public String toString() {
    return "Prediction[" + replicaId + " " + worker.encode() + " blocks=" + blocks() + "]";
  }
}
