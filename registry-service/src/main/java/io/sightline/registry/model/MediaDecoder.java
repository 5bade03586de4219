package io.sightline.registry.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * Whether the frontend (gateway) downloads and decodes images itself for this model, and within
 * which limits. When {@code enabled}, mm_hash is taken over the decoded bytes (identical pictures
 * at different URLs share cache), the gateway fetches at most {@code maxBytes} per image and
 * refuses images above {@code maxPixels}; otherwise mm_hash is the XXH3 of the URL string and only
 * the image header is read (see ../shared/DESIGN.md "Media identity" and dynamo.md §9
 * media_decoder).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MediaDecoder(Boolean enabled, Long maxBytes, Long maxPixels) {
  /** Default byte limit per image when decoding is enabled: 20 MiB. */
  public static final long DEFAULT_MAX_BYTES = 20L * 1024 * 1024;

  /** Default pixel limit per image when decoding is enabled: 8192 x 8192. */
  public static final long DEFAULT_MAX_PIXELS = 8192L * 8192L;

  /** The default: the frontend does not decode media. */
  public static MediaDecoder disabled() {
    return new MediaDecoder(false, DEFAULT_MAX_BYTES, DEFAULT_MAX_PIXELS);
  }

  /** True when the frontend decodes media. */
  public boolean isEnabled() {
    return Boolean.TRUE.equals(enabled);
  }

  /** This decoder with unset fields filled with defaults. */
  public MediaDecoder withDefaults() {
    return new MediaDecoder(
        enabled != null && enabled,
        maxBytes == null ? DEFAULT_MAX_BYTES : maxBytes,
        maxPixels == null ? DEFAULT_MAX_PIXELS : maxPixels);
  }
}
