package io.sightline.router.state;

/**
 * A compact snapshot of one replica's KV index together with the event-plane (JetStream) sequence
 * it reflects: a starting replica loads the newest one and replays the stream from {@code
 * streamSequence + 1} instead of starting blind (dynamo.md §3 "Replica consistency", §8 item 5).
 *
 * @param replicaId who wrote it
 * @param streamSequence last event-plane sequence applied to the index when it was taken
 * @param createdAtMillis wall-clock time it was taken
 * @param data the encoded index ({@code IndexSnapshotCodec}); opaque to the store
 */
public record IndexSnapshot(
    String replicaId, long streamSequence, long createdAtMillis, byte[] data) {
  public IndexSnapshot {
    data = data.clone();
  }

  @Override
  public byte[] data() {
    return data.clone();
  }
}
