package io.sightline.adapter.vllm;

/**
 * A vLLM KV-event message that cannot be decoded. Checked on purpose: a malformed batch from one
 * worker must be handled (counted, logged, treated as a gap) by the caller, never crash the
 * subscriber thread.
 */
public final class EventDecodeException extends Exception {
  private static final long serialVersionUID = 1L;

  public EventDecodeException(String message) {
    super(message);
  }

  public EventDecodeException(String message, Throwable cause) {
    super(message, cause);
  }
}
