package io.sightline.router.state;

import java.util.Optional;

/**
 * Where replicas keep index snapshots for warm start. "Newest" means the highest {@link
 * IndexSnapshot#streamSequence()} (the most events applied), not the latest clock time.
 */
public interface SnapshotStore extends AutoCloseable {

  /** Stores {@code snapshot} as its replica's current one (replacing the previous). */
  void save(IndexSnapshot snapshot);

  /** The snapshot with the highest stream sequence, if any replica has written one. */
  Optional<IndexSnapshot> newest();

  @Override
  void close();
}
