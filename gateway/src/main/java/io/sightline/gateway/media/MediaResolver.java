package io.sightline.gateway.media;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.MeterRegistry;
import io.sightline.gateway.config.GatewayProperties;
import io.sightline.gateway.media.MediaException.Reason;
import io.sightline.router.api.ResolvedImage;
import io.sightline.routing.multimodal.ImageHeaderProbe;
import io.sightline.routing.multimodal.MmHashes;
import io.sightline.routing.multimodal.ProbeResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Turns a request's image parts into {@link ResolvedImage}s (mm_hash, width, height) in order of
 * appearance, the input the router needs (../shared/reference/seeds: "(W, H) is read from a 64KB
 * Range-bounded header fetch (or from in-memory bytes for data: URIs)").
 *
 * <ul>
 *   <li>{@code data:} URIs: decoded in memory; mm_hash over the bytes; size from the header.
 *   <li>http(s) URLs, model without media decoding: mm_hash of the URL string; size from a
 *       range-bounded fetch of the first 4 KiB, then up to 64 KiB if the header runs on.
 *   <li>http(s) URLs, model with {@code media_decoder}: full download under a byte cap; mm_hash
 *       over the bytes (two signed URLs of one picture then share their cache).
 * </ul>
 *
 * The pixel cap is checked from the header before any full download or decode. URL results are
 * cached locally (Caffeine; concurrent requests for one URL share one fetch) and, when configured,
 * in a shared {@link MediaCache} (Redis). Failures are 400s and are never cached.
 */
public final class MediaResolver {
  private static final Logger log = LoggerFactory.getLogger(MediaResolver.class);

  private final GatewayProperties.Media props;
  private final SafeHttpFetcher fetcher;
  private final MediaCache shared;
  private final AsyncCache<String, ResolvedImage> local;
  private final Scheduler decodePool;
  private final MeterRegistry meters;

  public MediaResolver(
      GatewayProperties.Media props,
      SafeHttpFetcher fetcher,
      MediaCache shared,
      MeterRegistry meters) {
    this.props = props;
    this.fetcher = fetcher;
    this.shared = shared;
    this.meters = meters;
    this.local =
        Caffeine.newBuilder()
            .maximumSize(props.getCacheMaxEntries())
            .expireAfterWrite(props.getCacheTtl())
            .buildAsync();
    int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
    this.decodePool = Schedulers.newBoundedElastic(threads, 256, "sightline-image-check", 60, true);
  }

  /** One image part of a chat request. */
  public record ImagePart(JsonNode part, String url) {}

  /** The image parts of a chat-completions body, in order. */
  public static List<ImagePart> imageParts(JsonNode body) {
    List<ImagePart> parts = new ArrayList<>();
    JsonNode messages = body.path("messages");
    if (!messages.isArray()) {
      return parts;
    }
    for (JsonNode message : messages) {
      JsonNode content = message.path("content");
      if (!content.isArray()) {
        continue;
      }
      for (JsonNode part : content) {
        // Same definition of an image part as the vLLM adapter's shaper, so the uuids it assigns
        // line up with the images resolved here: image_url, input_image, or an untyped part
        // carrying image_url.
        String type = part.path("type").asText(null);
        boolean isImage =
            "image_url".equals(type)
                || "input_image".equals(type)
                || (type == null && part.has("image_url"));
        if (!isImage) {
          continue;
        }
        JsonNode imageUrl = part.path("image_url");
        String url = imageUrl.isTextual() ? imageUrl.asText() : imageUrl.path("url").asText(null);
        if (url == null || url.isBlank()) {
          throw new MediaException(Reason.BAD_URL, "An image_url part has no url.");
        }
        parts.add(new ImagePart(part, url));
      }
    }
    return parts;
  }

  /** Resolves every part, in order; fails with the first part's 400. */
  public Mono<List<ResolvedImage>> resolve(List<ImagePart> parts, boolean mediaDecoder) {
    if (parts.size() > props.getMaxImagesPerRequest()) {
      return Mono.error(
          reject(
              new MediaException(
                  Reason.TOO_MANY_IMAGES,
                  "Too many images: "
                      + parts.size()
                      + " (at most "
                      + props.getMaxImagesPerRequest()
                      + " per request).")));
    }
    if (parts.isEmpty()) {
      return Mono.just(List.of());
    }
    return Flux.fromIterable(parts)
        .flatMapSequential(p -> resolveOne(p.url(), mediaDecoder), 8)
        .collectList()
        .onErrorMap(MediaException.class, this::reject);
  }

  private MediaException reject(MediaException e) {
    meters
        .counter("sightline_gateway_media_rejected_total", "reason", e.reason().name())
        .increment();
    return e;
  }

  /** Resolves one URL or data URI. */
  public Mono<ResolvedImage> resolveOne(String url, boolean mediaDecoder) {
    if (DataUri.isDataUri(url)) {
      return Mono.fromCallable(
              () -> fromBytes(DataUri.decode(url, bytes(props.getMaxDataUriSize()))))
          .subscribeOn(decodePool);
    }
    String key = (mediaDecoder ? "bytes|" : "url|") + url;
    return Mono.fromFuture(
        () ->
            local.get(
                key,
                (k, executor) ->
                    shared
                        .get(k)
                        .onErrorResume(
                            e -> {
                              log.debug("shared media cache read failed: {}", e.toString());
                              return Mono.empty();
                            })
                        .doOnNext(
                            x ->
                                meters
                                    .counter(
                                        "sightline_gateway_media_cache_total",
                                        "result",
                                        "shared_hit")
                                    .increment())
                        .switchIfEmpty(
                            Mono.defer(
                                () -> {
                                  meters
                                      .counter(
                                          "sightline_gateway_media_cache_total", "result", "miss")
                                      .increment();
                                  return fetch(url, mediaDecoder)
                                      .flatMap(
                                          img ->
                                              shared
                                                  .put(k, img, props.getCacheTtl())
                                                  .onErrorResume(e -> Mono.empty())
                                                  .thenReturn(img));
                                }))
                        .toFuture()),
        true);
  }

  private Mono<ResolvedImage> fetch(String url, boolean mediaDecoder) {
    int first = bytesInt(props.getHeaderFirstRead());
    int max = Math.min(bytesInt(props.getHeaderMaxRead()), ImageHeaderProbe.MAX_PREFIX);
    return fetcher
        .fetchPrefix(url, first)
        .flatMap(
            f -> {
              ProbeResult r = ImageHeaderProbe.probe(f.bytes(), 0, f.bytes().length, f.complete());
              if (r instanceof ProbeResult.NeedMoreBytes && max > first) {
                return fetcher
                    .fetchPrefix(url, max)
                    .map(g -> ImageHeaderProbe.probe(g.bytes(), 0, g.bytes().length, g.complete()));
              }
              return Mono.just(r);
            })
        .map(this::dimensions)
        .flatMap(
            d -> {
              if (!mediaDecoder) {
                return Mono.just(new ResolvedImage(MmHashes.ofUrl(url), d.width(), d.height()));
              }
              return fetcher
                  .fetchAll(url, bytes(props.getMaxDownloadSize()))
                  .publishOn(decodePool)
                  .map(all -> fromBytes(all.bytes()));
            });
  }

  /** Header check, pixel cap, optional full validation, mm_hash over the bytes. */
  private ResolvedImage fromBytes(byte[] bytes) {
    ProbeResult.Dimensions d =
        dimensions(
            ImageHeaderProbe.probe(
                bytes, 0, bytes.length, bytes.length <= ImageHeaderProbe.MAX_PREFIX));
    if (props.isValidateDecode()) {
      ImageValidator.validate(bytes, d.format(), d.width(), d.height());
    }
    return new ResolvedImage(MmHashes.ofBytes(bytes), d.width(), d.height());
  }

  private ProbeResult.Dimensions dimensions(ProbeResult r) {
    return switch (r) {
      case ProbeResult.Dimensions d -> {
        long pixels = (long) d.width() * d.height();
        if (pixels > props.getMaxPixels()) {
          throw new MediaException(
              Reason.TOO_MANY_PIXELS,
              "Image is "
                  + d.width()
                  + "x"
                  + d.height()
                  + " pixels, over the limit of "
                  + props.getMaxPixels()
                  + " pixels.");
        }
        yield d;
      }
      case ProbeResult.NeedMoreBytes n ->
          throw new MediaException(
              Reason.MALFORMED, "Image header not found within the first bytes of the image.");
      case ProbeResult.Malformed m ->
          throw new MediaException(
              Reason.MALFORMED, "Image is not a valid image: " + m.reason() + ".");
    };
  }

  private static long bytes(org.springframework.util.unit.DataSize s) {
    return s.toBytes();
  }

  private static int bytesInt(org.springframework.util.unit.DataSize s) {
    return (int) Math.min(Integer.MAX_VALUE, s.toBytes());
  }

  /** Stops the decode pool. */
  public void close() {
    decodePool.dispose();
  }

  Duration ttl() {
    return props.getCacheTtl();
  }
}
