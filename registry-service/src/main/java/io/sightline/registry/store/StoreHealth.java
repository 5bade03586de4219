package io.sightline.registry.store;

import java.util.Map;

/** Result of {@link RegistryStore#health()}: up or down, with details for actuator. */
public record StoreHealth(boolean up, Map<String, Object> details) {
  public StoreHealth {
    details = Map.copyOf(details);
  }
}
