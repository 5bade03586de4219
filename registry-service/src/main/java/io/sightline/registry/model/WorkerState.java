package io.sightline.registry.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Lifecycle of a worker as the router sees it: {@link #READY} takes new requests, {@link #DRAINING}
 * finishes what it has but gets no new work (rolling restarts).
 */
public enum WorkerState {
  READY("ready"),
  DRAINING("draining");

  private final String id;

  WorkerState(String id) {
    this.id = id;
  }

  @JsonValue
  public String id() {
    return id;
  }

  @JsonCreator
  public static WorkerState fromId(String id) {
    for (WorkerState s : values()) {
      if (s.id.equals(id)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown state '" + id + "' (expected ready or draining)");
  }
}
