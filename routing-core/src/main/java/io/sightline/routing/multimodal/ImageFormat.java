package io.sightline.routing.multimodal;

/** Image container formats whose dimensions {@link ImageHeaderProbe} reads from the header. */
public enum ImageFormat {
  PNG("png"),
  JPEG("jpeg"),
  GIF("gif"),
  WEBP("webp"),
  BMP("bmp");

  private final String id;

  ImageFormat(String id) {
    this.id = id;
  }

  /** Lower-case name used in JSON output ({@code "png"}, {@code "jpeg"}, …). */
  public String id() {
    return id;
  }
}
