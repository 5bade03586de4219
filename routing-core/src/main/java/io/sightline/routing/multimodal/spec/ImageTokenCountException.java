package io.sightline.routing.multimodal.spec;

/**
 * The model's processor would reject an image of this size (for example an aspect ratio above
 * Qwen's 200:1, a side of zero, or a size outside Kimi-VL's patch limit).
 */
public final class ImageTokenCountException extends Exception {
  public ImageTokenCountException(String message) {
    super(message);
  }
}
