package io.sightline.routing.multimodal;

/**
 * Outcome of {@link ImageHeaderProbe}: the image's size, a request for more bytes (the prefix ends
 * before the size is known), or a definite "this is not a well-formed image header".
 */
public sealed interface ProbeResult
    permits ProbeResult.Dimensions, ProbeResult.NeedMoreBytes, ProbeResult.Malformed {

  /** The header was read: format and pixel size (both sides ≥ 1). */
  record Dimensions(ImageFormat format, int width, int height) implements ProbeResult {}

  /**
   * The bytes seen so far are consistent with an image but end before its size is known; at least
   * {@code atLeast} bytes in total are needed to go on (a lower bound, not a promise). {@code
   * format} is null when not even the signature is complete.
   */
  record NeedMoreBytes(ImageFormat format, int atLeast, String reason) implements ProbeResult {}

  /** The bytes are not a well-formed header of a supported format; {@code format} may be null. */
  record Malformed(ImageFormat format, String reason) implements ProbeResult {}
}
