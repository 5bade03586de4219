package io.sightline.routing.expansion;

/** The prompt cannot be expanded (placeholder/image count mismatch, cap exceeded, bad counts). */
public final class ExpansionException extends Exception {
  public ExpansionException(String message) {
    super(message);
  }
}
