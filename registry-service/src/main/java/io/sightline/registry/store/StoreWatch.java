package io.sightline.registry.store;

/** A running watch; closing it stops delivery. */
public interface StoreWatch extends AutoCloseable {
  @Override
  void close();
}
