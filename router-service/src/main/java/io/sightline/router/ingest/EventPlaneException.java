package io.sightline.router.ingest;

/** The event plane (NATS JetStream, or the in-process bus) could not do what was asked. */
public final class EventPlaneException extends Exception {
  private static final long serialVersionUID = 1L;

  public EventPlaneException(String message) {
    super(message);
  }

  public EventPlaneException(String message, Throwable cause) {
    super(message, cause);
  }
}
