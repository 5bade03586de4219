package io.sightline.sim.prompt;

import io.sightline.routing.multimodal.ImageHeaderProbe;
import io.sightline.routing.multimodal.ProbeResult;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Loads an image the way an engine's media connector does: {@code data:} URIs are decoded, {@code
 * http(s)} URLs are downloaded (bounded size and time), and the size is read from the header with
 * the router's {@link ImageHeaderProbe} (PNG, JPEG, GIF, WebP, BMP). The identifier is the caller's
 * uuid when given (vLLM's {@code multi_modal_uuids}: the uuid replaces the engine's own item hash)
 * or else SHA-256 hex of the bytes, standing in for vLLM's blake3 {@code mm_hash} (an opaque value
 * either way). Images referenced only by uuid (no data) are resolved from a small memory of earlier
 * requests, as vLLM's processor cache does; unknown ones are rejected.
 */
public final class ImageResolver {
  /** Largest image accepted (bytes). */
  public static final int MAX_BYTES = 32 * 1024 * 1024;

  private final HttpClient http;
  private final Map<String, SimImage> byUuid =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, SimImage> eldest) {
          return size() > 4096;
        }
      };

  public ImageResolver() {
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NORMAL)
            .build();
  }

  /** Resolves one image part; {@code url} may be null only when {@code uuid} is set. */
  public SimImage resolve(String url, String uuid) throws SimRequestException {
    if (url == null || url.isBlank()) {
      if (uuid == null) {
        throw SimRequestException.badRequest("image_url.url is required", "messages");
      }
      synchronized (byUuid) {
        SimImage known = byUuid.get(uuid);
        if (known == null) {
          throw SimRequestException.badRequest(
              "image with uuid '" + uuid + "' has no data and is not in the processor cache",
              "messages");
        }
        return known;
      }
    }
    byte[] bytes = load(url);
    ProbeResult probe = ImageHeaderProbe.probe(bytes, 0, bytes.length, true);
    if (!(probe instanceof ProbeResult.Dimensions dims)) {
      String reason =
          switch (probe) {
            case ProbeResult.Malformed m -> m.reason();
            case ProbeResult.NeedMoreBytes n -> n.reason();
            default -> "unknown";
          };
      throw SimRequestException.badRequest("cannot identify image file: " + reason, "messages");
    }
    byte[] digest = sha256(bytes);
    String identifier = uuid != null ? uuid : HexFormat.of().formatHex(digest);
    SimImage image = new SimImage(identifier, digest, dims.width(), dims.height());
    if (uuid != null) {
      synchronized (byUuid) {
        byUuid.put(uuid, image);
      }
    }
    return image;
  }

  private byte[] load(String url) throws SimRequestException {
    if (url.startsWith("data:")) {
      int comma = url.indexOf(',');
      if (comma < 0 || !url.substring(0, comma).endsWith(";base64")) {
        throw SimRequestException.badRequest("only base64 data: URLs are supported", "messages");
      }
      try {
        return Base64.getMimeDecoder().decode(url.substring(comma + 1));
      } catch (IllegalArgumentException e) {
        throw SimRequestException.badRequest("invalid base64 image data", "messages");
      }
    }
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      throw SimRequestException.badRequest("invalid image URL", "messages");
    }
    if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
      throw SimRequestException.badRequest(
          "image URL scheme must be http, https or data", "messages");
    }
    try {
      HttpResponse<byte[]> response =
          http.send(
              HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
              HttpResponse.BodyHandlers.ofByteArray());
      if (response.statusCode() / 100 != 2) {
        throw SimRequestException.badRequest(
            "fetching image failed with HTTP " + response.statusCode(), "messages");
      }
      byte[] body = response.body();
      if (body.length > MAX_BYTES) {
        throw SimRequestException.badRequest("image larger than " + MAX_BYTES + " bytes");
      }
      return body;
    } catch (IOException e) {
      throw SimRequestException.badRequest("fetching image failed: " + e.getMessage(), "messages");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw SimRequestException.badRequest("interrupted while fetching image", "messages");
    }
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
