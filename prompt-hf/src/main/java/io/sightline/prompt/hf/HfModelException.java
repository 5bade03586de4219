package io.sightline.prompt.hf;

/** A model directory cannot be loaded (unreadable or invalid files). */
public final class HfModelException extends Exception {
  public HfModelException(String message) {
    super(message);
  }

  public HfModelException(String message, Throwable cause) {
    super(message, cause);
  }
}
