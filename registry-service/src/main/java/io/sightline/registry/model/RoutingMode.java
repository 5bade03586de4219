package io.sightline.registry.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * How the router learns what each worker caches: {@link #PRECISE} from the workers' KV events
 * (needs the exact tokenizer and chat template), {@link #APPROXIMATE} from its own routing
 * decisions with a TTL (no events, approximate token counts).
 */
public enum RoutingMode {
  PRECISE("precise"),
  APPROXIMATE("approximate");

  private final String id;

  RoutingMode(String id) {
    this.id = id;
  }

  @JsonValue
  public String id() {
    return id;
  }

  @JsonCreator
  public static RoutingMode fromId(String id) {
    for (RoutingMode m : values()) {
      if (m.id.equals(id)) {
        return m;
      }
    }
    throw new IllegalArgumentException(
        "unknown routing_mode '" + id + "' (expected precise or approximate)");
  }
}
