package io.sightline.routing.multimodal.spec;

/** Shared argument checks. */
final class Sizes {
  private Sizes() {}

  static void requirePositive(int width, int height) throws ImageTokenCountException {
    if (width <= 0 || height <= 0) {
      throw new ImageTokenCountException(
          "image size must be positive, got " + width + "x" + height);
    }
  }
}
