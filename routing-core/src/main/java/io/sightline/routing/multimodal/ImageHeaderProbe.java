package io.sightline.routing.multimodal;

/** Reads an image's format and size from its first bytes (skeleton; implemented below). */
public final class ImageHeaderProbe {
  /** The largest prefix the probe looks at (Dynamo fetches at most 64 KiB with a Range GET). */
  public static final int MAX_PREFIX = 64 * 1024;

  private ImageHeaderProbe() {}

  /** Probes a prefix of an image (the whole file or its first bytes). */
  public static ProbeResult probe(byte[] bytes) {
    return probe(bytes, 0, bytes == null ? 0 : bytes.length, false);
  }

  /**
   * Probes {@code length} bytes at {@code offset}. When {@code complete} is true the bytes are the
   * entire file, so running out of bytes is reported as {@link ProbeResult.Malformed} (truncated)
   * rather than {@link ProbeResult.NeedMoreBytes}.
   */
  public static ProbeResult probe(byte[] bytes, int offset, int length, boolean complete) {
    return new ProbeResult.Malformed(null, "not implemented yet");
  }
}
