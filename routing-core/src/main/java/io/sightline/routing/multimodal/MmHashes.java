package io.sightline.routing.multimodal;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * Image identity ({@code mm_hash}) and its two textual forms, as Dynamo defines them ({@code
 * ../shared/reference/dynamo.md} §1.3, §5).
 *
 * <ul>
 *   <li>{@code mm_hash} is XXH3-64 with seed 0 over the URL string (plain http(s) images) or over
 *       the image bytes ({@code data:} URIs, and http(s) images when the frontend decodes media).
 *   <li>The <em>forwardable</em> form sent to an engine as a multimodal uuid is the 16 lowercase
 *       hex digits of the hash followed by 48 zeros (64 characters).
 *   <li>On events, an identifier of 64 hex characters maps back to the value of its first 16 hex
 *       digits; any other non-empty string maps to XXH3-64 (seed 0) of its UTF-8 bytes.
 * </ul>
 *
 * <p>Gen-2 pad values fold an mm_hash into one token id: {@code 1_000_000 + (h & (2^30 - 1))}.
 */
public final class MmHashes {
  /** Dynamo's {@code MM_PAD_SHIFT_VALUE}. */
  public static final int PAD_SHIFT = 1_000_000;

  /** Dynamo's {@code MM_PAD_HASH_MASK}. */
  public static final long PAD_MASK = (1L << 30) - 1;

  private static final Hasher64 XXH3 = Hashing.xxh3_64(0L);
  private static final String ZEROS_48 = "0".repeat(48);

  private MmHashes() {}

  /** mm_hash of image bytes. */
  public static long ofBytes(byte[] bytes) {
    return XXH3.hashBytesToLong(bytes);
  }

  /** mm_hash of a slice of image bytes. */
  public static long ofBytes(byte[] bytes, int offset, int length) {
    return XXH3.hashBytesToLong(bytes, offset, length);
  }

  /** mm_hash of a URL (the full string, query included). */
  public static long ofUrl(String url) {
    return XXH3.hashBytesToLong(url.getBytes(StandardCharsets.UTF_8));
  }

  /** The 64-hex-character form sent to engines as a multimodal uuid. */
  public static String forwardable(long mmHash) {
    return String.format(Locale.ROOT, "%016x", mmHash) + ZEROS_48;
  }

  /**
   * The mm_hash an event identifier stands for: the first 16 hex digits of a 64-hex-character
   * identifier, else XXH3-64 (seed 0) of the string; empty for null or empty identifiers.
   */
  public static OptionalLong fromIdentifier(String identifier) {
    if (identifier == null || identifier.isEmpty()) {
      return OptionalLong.empty();
    }
    if (identifier.length() == 64 && isHex(identifier)) {
      return OptionalLong.of(Long.parseUnsignedLong(identifier.substring(0, 16), 16));
    }
    return OptionalLong.of(XXH3.hashBytesToLong(identifier.getBytes(StandardCharsets.UTF_8)));
  }

  /** Gen-2 pad token for an image: {@code 1_000_000 + (mmHash & (2^30-1))}. */
  public static int padValue(long mmHash) {
    return (int) (PAD_SHIFT + (mmHash & PAD_MASK));
  }

  private static boolean isHex(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      if (!hex) {
        return false;
      }
    }
    return true;
  }
}
