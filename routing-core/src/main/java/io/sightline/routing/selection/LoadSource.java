package io.sightline.routing.selection;

import io.sightline.routing.index.WorkerKey;

/**
 * Where selection reads in-flight load. {@link LoadTracker} is the in-process implementation; a
 * replicated router can supply the sum over replicas instead.
 */
@FunctionalInterface
public interface LoadSource {
  WorkerLoad load(WorkerKey worker);
}
