package io.sightline.registry.store;

/** The entry does not exist (HTTP 404). */
public final class NotFoundException extends RuntimeException {
  public NotFoundException(String message) {
    super(message);
  }
}
