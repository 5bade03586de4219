package io.sightline.registry.store;

import java.util.List;

/** Callback side of {@link RegistryStore#watch}. Calls are serial, in revision order. */
public interface StoreWatcher {
  /** A batch of changes (one store transaction or a replay chunk), in revision order. */
  void onEvents(List<StoreEvent> events);

  /** The requested history is gone; the watch has ended. Reload a snapshot. */
  void onCompacted(long compactRevision);

  /** The backend failed; the watch has ended. Resume from the last revision seen + 1. */
  void onError(Throwable error);
}
