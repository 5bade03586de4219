package io.sightline.router.ingest;

import io.sightline.routing.event.KvEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * Stamps a worker rank's events with plane sequence numbers: strictly increasing, continuing from
 * the newest message already on the plane (so a new bridge owner continues its predecessor's
 * numbering). See {@link EventBatchMessage} for why plane and source sequences differ.
 */
final class PlaneSequencer {
  private long next;

  PlaneSequencer(long lastOnPlane) {
    this.next = Math.max(0, lastOnPlane + 1);
  }

  List<KvEvent> stamp(List<KvEvent> events) {
    List<KvEvent> out = new ArrayList<>(events.size());
    for (KvEvent e : events) {
      out.add(KvEvents.withSequence(e, next++));
    }
    return out;
  }

  long lastStamped() {
    return next - 1;
  }
}
