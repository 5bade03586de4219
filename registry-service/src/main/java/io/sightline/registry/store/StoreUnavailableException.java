package io.sightline.registry.store;

/** The backend (etcd, the persistence file) could not be reached or written (HTTP 503). */
public final class StoreUnavailableException extends RuntimeException {
  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
