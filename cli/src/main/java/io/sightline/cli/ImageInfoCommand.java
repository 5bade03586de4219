package io.sightline.cli;

import io.sightline.routing.multimodal.ImageFileCheck;
import io.sightline.routing.multimodal.ImageHeaderProbe;
import io.sightline.routing.multimodal.MmHashes;
import io.sightline.routing.multimodal.ProbeResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code image-info}: format, size and mm_hash of images from their header only.
 *
 * <p>mm_hash follows Dynamo ({@code ../shared/reference/dynamo.md} §5 step 2): bytes for files and
 * {@code data:} URIs, the full URL string for http(s) unless {@code --content-hash} (frontend media
 * decoding: hash the downloaded bytes). For http(s) the size comes from {@code Range:
 * bytes=0-4095}, retried with {@code bytes=0-65535} when the header is longer (Dynamo step 3).
 */
@Command(
    name = "image-info",
    mixinStandardHelpOptions = true,
    description = {
      "Read image format, size and mm_hash from image headers.",
      "",
      "Prints {\"format\",\"width\",\"height\",\"mm_hash\"} per image (one JSON line each, in order),",
      "reading the size from the image header only. mm_hash is an unsigned 64-bit decimal.",
      "An image that cannot be read gets {\"source\",\"error\"} and the exit status is 1."
    })
final class ImageInfoCommand implements Callable<Integer> {
  private static final int FIRST_RANGE = 4096;

  @Spec CommandSpec spec;

  @Parameters(
      arity = "1..*",
      paramLabel = "FILE_OR_URL",
      description = "File, data: URI or http(s) URL")
  List<String> sources;

  @Option(
      names = "--verify",
      description = "For files and data: URIs, also check the whole file's structure (CRCs, EOI…)")
  boolean verify;

  @Option(
      names = "--content-hash",
      description = "For http(s) URLs, download the image and hash its bytes instead of the URL")
  boolean contentHash;

  @Option(
      names = "--timeout",
      defaultValue = "10",
      paramLabel = "SECONDS",
      description = "HTTP timeout (default: ${DEFAULT-VALUE})")
  int timeoutSeconds;

  private HttpClient http;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    int status = 0;
    for (String src : sources) {
      String line;
      try {
        line = describe(src);
      } catch (InfoException e) {
        status = 1;
        line =
            Json.object(
                g -> {
                  g.writeStringField("source", abbreviate(src));
                  g.writeStringField("error", e.getMessage());
                });
      }
      out.println(line);
      out.flush();
    }
    return status;
  }

  private String describe(String src) throws InfoException {
    long mmHash;
    ProbeResult probe;
    String lower = src.toLowerCase(java.util.Locale.ROOT);
    if (lower.startsWith("data:")) {
      byte[] bytes = decodeDataUri(src);
      mmHash = MmHashes.ofBytes(bytes);
      probe = verify ? ImageFileCheck.check(bytes) : probeWhole(bytes);
    } else if (lower.startsWith("http://") || lower.startsWith("https://")) {
      URI uri;
      try {
        uri = URI.create(src);
      } catch (IllegalArgumentException e) {
        throw new InfoException("invalid URL: " + e.getMessage());
      }
      if (contentHash) {
        byte[] bytes = get(uri, null);
        mmHash = MmHashes.ofBytes(bytes);
        probe = verify ? ImageFileCheck.check(bytes) : probeWhole(bytes);
      } else {
        mmHash = MmHashes.ofUrl(src);
        probe = probeUrl(uri);
      }
    } else {
      byte[] bytes;
      try {
        bytes = Files.readAllBytes(Path.of(src));
      } catch (IOException | RuntimeException e) {
        throw new InfoException("cannot read file: " + e.getMessage());
      }
      mmHash = MmHashes.ofBytes(bytes);
      probe = verify ? ImageFileCheck.check(bytes) : probeWhole(bytes);
    }
    return switch (probe) {
      case ProbeResult.Dimensions d ->
          Json.object(
              g -> {
                g.writeStringField("format", d.format().id());
                g.writeNumberField("width", d.width());
                g.writeNumberField("height", d.height());
                g.writeFieldName("mm_hash");
                Json.unsigned(g, mmHash);
              });
      case ProbeResult.NeedMoreBytes n ->
          throw new InfoException("image header incomplete: " + n.reason());
      case ProbeResult.Malformed m ->
          throw new InfoException((m.format() == null ? "" : m.format().id() + ": ") + m.reason());
    };
  }

  /** Header probe of a complete file (only the first 64 KiB are looked at). */
  private static ProbeResult probeWhole(byte[] bytes) {
    return ImageHeaderProbe.probe(bytes, 0, bytes.length, true);
  }

  private ProbeResult probeUrl(URI uri) throws InfoException {
    byte[] head = get(uri, "bytes=0-" + (FIRST_RANGE - 1));
    ProbeResult r = ImageHeaderProbe.probe(head, 0, head.length, head.length < FIRST_RANGE);
    if (r instanceof ProbeResult.NeedMoreBytes && head.length >= FIRST_RANGE) {
      head = get(uri, "bytes=0-" + (ImageHeaderProbe.MAX_PREFIX - 1));
      r = ImageHeaderProbe.probe(head, 0, head.length, head.length < ImageHeaderProbe.MAX_PREFIX);
    }
    return r;
  }

  /** GET (optionally a byte range), reading at most 64 KiB when a range was asked for. */
  private byte[] get(URI uri, String range) throws InfoException {
    if (http == null) {
      http =
          HttpClient.newBuilder()
              .connectTimeout(Duration.ofSeconds(timeoutSeconds))
              .followRedirects(HttpClient.Redirect.NORMAL)
              .build();
    }
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(timeoutSeconds)).GET();
    if (range != null) {
      b.header("Range", range);
    }
    try {
      HttpResponse<InputStream> resp =
          http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream in = resp.body()) {
        if (resp.statusCode() != 200 && resp.statusCode() != 206) {
          throw new InfoException("HTTP " + resp.statusCode() + " from " + uri.getHost());
        }
        // A server that ignores Range answers 200 with the whole body: read only what we need.
        return range == null ? in.readAllBytes() : in.readNBytes(ImageHeaderProbe.MAX_PREFIX);
      }
    } catch (IOException e) {
      throw new InfoException("fetch failed: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InfoException("interrupted");
    } catch (IllegalArgumentException e) {
      throw new InfoException("invalid URL: " + e.getMessage());
    }
  }

  /** {@code data:[<mediatype>][;base64],<data>} (RFC 2397). */
  static byte[] decodeDataUri(String uri) throws InfoException {
    int comma = uri.indexOf(',');
    if (comma < 0) {
      throw new InfoException("data: URI has no ',' separator");
    }
    String meta = uri.substring(5, comma);
    String data = uri.substring(comma + 1);
    try {
      if (meta.toLowerCase(java.util.Locale.ROOT).endsWith(";base64")) {
        return Base64.getMimeDecoder().decode(data);
      }
      return URLDecoder.decode(data, StandardCharsets.ISO_8859_1)
          .getBytes(StandardCharsets.ISO_8859_1);
    } catch (IllegalArgumentException e) {
      throw new InfoException("data: URI payload is not valid: " + e.getMessage());
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 120 ? s : s.substring(0, 117) + "...";
  }

  /** A per-image failure, reported on its own JSON line. */
  static final class InfoException extends Exception {
    InfoException(String message) {
      super(message, null, false, false);
    }
  }
}
