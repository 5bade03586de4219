package io.sightline.routing.multimodal.spec;

/** A model directory's files cannot be turned into a processor spec. */
public final class SpecException extends Exception {
  public SpecException(String message) {
    super(message);
  }
}
