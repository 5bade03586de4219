package io.sightline.gateway.media;

import io.sightline.gateway.media.MediaException.Reason;
import java.util.Base64;
import java.util.Locale;

/**
 * Decodes {@code data:[<mediatype>][;params];base64,<data>} image URIs in memory (RFC 2397). The
 * decoded size is computed from the encoded length and checked against the cap <em>before</em>
 * anything is allocated, so a huge URI costs no more than the body it came in.
 */
public final class DataUri {
  private DataUri() {}

  /** Whether {@code url} is a {@code data:} URI (case-insensitive scheme). */
  public static boolean isDataUri(String url) {
    return url != null && url.regionMatches(true, 0, "data:", 0, 5);
  }

  /**
   * The decoded bytes.
   *
   * @throws MediaException 400 for non-base64 or invalid base64 data, or data over {@code maxBytes}
   */
  public static byte[] decode(String uri, long maxBytes) {
    int comma = uri.indexOf(',');
    if (comma < 0) {
      throw new MediaException(Reason.MALFORMED, "Image data URI has no ',' separator.");
    }
    String meta = uri.substring(5, comma).toLowerCase(Locale.ROOT);
    if (!meta.endsWith(";base64")) {
      throw new MediaException(Reason.MALFORMED, "Image data URIs must be base64-encoded.");
    }
    String data = uri.substring(comma + 1);
    long approx = (long) data.length() / 4 * 3;
    if (approx > maxBytes + 3) {
      throw new MediaException(
          Reason.TOO_LARGE, "Image data URI is larger than the limit of " + maxBytes + " bytes.");
    }
    byte[] bytes;
    try {
      // MIME decoder: tolerates line breaks some clients insert in long base64 strings.
      bytes = Base64.getMimeDecoder().decode(data);
    } catch (IllegalArgumentException e) {
      throw new MediaException(Reason.MALFORMED, "Image data URI is not valid base64.");
    }
    if (bytes.length == 0) {
      throw new MediaException(Reason.MALFORMED, "Image data URI is empty.");
    }
    if (bytes.length > maxBytes) {
      throw new MediaException(
          Reason.TOO_LARGE, "Image data URI is larger than the limit of " + maxBytes + " bytes.");
    }
    return bytes;
  }
}
