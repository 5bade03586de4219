package io.sightline.router.state;

/**
 * Factory of the replicated router state: {@link InMemoryStateHub} (embedded default) or {@link
 * RedisStateBackend} (distributed). Both satisfy the same contract suite.
 */
public interface StateBackend extends AutoCloseable {

  /**
   * The shared load view of one replica.
   *
   * @param ttlMillis how long this replica's published load survives without a sync
   */
  SharedLoad load(String replicaId, long ttlMillis);

  /** The prediction exchange of one replica. */
  PredictionStore predictions(String replicaId);

  /** The snapshot store (shared by all replicas). */
  SnapshotStore snapshots();

  /** Short description for logs ("in-memory", "redis://… prefix=…"). */
  String describe();

  @Override
  void close();
}
