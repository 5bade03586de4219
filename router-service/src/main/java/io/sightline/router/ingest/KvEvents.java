package io.sightline.router.ingest;

import io.sightline.routing.event.KvEvent;

/** Small helpers over {@link KvEvent} that the ingest pipeline needs. */
final class KvEvents {
  private KvEvents() {}

  /** The same event with another sequence number. */
  static KvEvent withSequence(KvEvent e, long seq) {
    return switch (e) {
      case KvEvent.Stored s ->
          new KvEvent.Stored(
              s.workerId(),
              s.dpRank(),
              seq,
              s.tier(),
              s.blockHashes(),
              s.parentHash(),
              s.tokenIds(),
              s.blockSize(),
              s.blockMmHashes(),
              s.loraName(),
              s.cacheSalt());
      case KvEvent.Removed r ->
          new KvEvent.Removed(r.workerId(), r.dpRank(), seq, r.tier(), r.blockHashes());
      case KvEvent.Cleared c -> new KvEvent.Cleared(c.workerId(), c.dpRank(), seq);
    };
  }
}
