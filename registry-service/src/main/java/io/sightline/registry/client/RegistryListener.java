package io.sightline.registry.client;

/**
 * Receives fleet changes from a {@link RegistryClient}. Called on the client's single event thread,
 * in revision order; implementations must not block for long.
 */
@FunctionalInterface
public interface RegistryListener {
  void onEvent(RegistryEvent event);
}
