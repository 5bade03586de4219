package io.sightline.gateway.media;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sightline.gateway.config.GatewayProperties;
import io.sightline.gateway.media.MediaException.Reason;
import io.sightline.gateway.support.ImageServer;
import io.sightline.router.api.ResolvedImage;
import io.sightline.routing.multimodal.MmHashes;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The SSRF matrix and the range-bounded header fetch against a real local HTTP server. Host names
 * go through a test resolver: {@code media.test} is the (explicitly trusted) local image host,
 * {@code evil.test} resolves to a private address, {@code mixed.test} to a public and a private
 * one.
 */
class SafeHttpFetcherTest {
  static ImageServer server;
  static final Map<String, AtomicInteger> lookups = new ConcurrentHashMap<>();
  static final HostResolver RESOLVER =
      host -> {
        lookups.computeIfAbsent(host, k -> new AtomicInteger()).incrementAndGet();
        return switch (host) {
          case "media.test" -> List.of(InetAddress.getByName("127.0.0.1"));
          case "evil.test" -> List.of(InetAddress.getByName("10.1.2.3"));
          case "meta.test" -> List.of(InetAddress.getByName("169.254.169.254"));
          case "mixed.test" ->
              List.of(InetAddress.getByName("93.184.216.34"), InetAddress.getByName("192.168.0.1"));
          default -> throw new UnknownHostException(host);
        };
      };
  static SafeHttpFetcher fetcher;
  static MediaResolver resolver;

  @BeforeAll
  static void start() throws Exception {
    server =
        new ImageServer()
            .file("/hopper.png", "valid/pillow_hopper.png")
            .file("/hopper.jpg", "valid/pillow_hopper.jpg")
            .file("/cmyk.jpg", "valid/pillow_pil_sample_cmyk.jpg")
            .file("/broken.png", "malformed/pillow_broken.png");
    int p = server.port();
    server
        .redirect("/to-loopback", "http://127.0.0.1:" + p + "/hopper.png")
        .redirect("/to-evil", "http://evil.test:" + p + "/hopper.png")
        .redirect("/to-metadata", "http://169.254.169.254/latest/meta-data/")
        .redirect("/hop1", "/hop2")
        .redirect("/hop2", "http://media.test:" + p + "/hopper.png")
        .redirect("/loop1", "/loop2")
        .redirect("/loop2", "/loop3")
        .redirect("/loop3", "/loop4")
        .redirect("/loop4", "/hopper.png");
    fetcher =
        new SafeHttpFetcher(
            new AddressPolicy(false, List.of(), List.of("denied.test"), Set.of("media.test")),
            RESOLVER,
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            3,
            false);
    resolver =
        new MediaResolver(
            new GatewayProperties().getMedia(),
            fetcher,
            MediaCache.NONE,
            new SimpleMeterRegistry());
  }

  @AfterAll
  static void stop() {
    server.close();
    resolver.close();
  }

  String url(String path) {
    return "http://media.test:" + server.port() + path;
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http://127.0.0.1/x.png",
        "http://10.0.0.1/x.png",
        "http://10.255.1.1:8080/x.png",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/x.png",
        "http://[fd00::1]/x.png",
        "http://[fd12:3456::1]/x.png",
        "http://[::ffff:127.0.0.1]/x.png",
        "http://evil.test/x.png",
        "http://meta.test/x.png",
        "http://mixed.test/x.png",
        "http://localhost/x.png",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://denied.test/x.png"
      })
  void ssrfTargetsAreRefusedWith400(String url) {
    assertThatThrownBy(() -> fetcher.fetchPrefix(url, 4096).block())
        .isInstanceOfSatisfying(
            MediaException.class,
            e -> {
              assertThat(e.status()).isEqualTo(400);
              assertThat(e.reason()).isIn(Reason.BLOCKED_ADDRESS, Reason.BLOCKED_DOMAIN);
            });
  }

  @ParameterizedTest
  @ValueSource(strings = {"/to-loopback", "/to-evil", "/to-metadata"})
  void redirectsToInternalAddressesAreRefused(String path) {
    assertThatThrownBy(() -> fetcher.fetchPrefix(url(path), 4096).block())
        .isInstanceOfSatisfying(
            MediaException.class,
            e -> assertThat(e.reason()).isIn(Reason.BLOCKED_ADDRESS, Reason.BLOCKED_DOMAIN));
  }

  @Test
  void redirectsAreFollowedAtMostThreeTimes() {
    assertThat(fetcher.fetchPrefix(url("/hop1"), 4096).block().bytes()).hasSize(4096);
    assertThatThrownBy(() -> fetcher.fetchPrefix(url("/loop1"), 4096).block())
        .isInstanceOfSatisfying(
            MediaException.class, e -> assertThat(e.getMessage()).contains("more than 3"));
  }

  @Test
  void otherSchemesAreRefused() {
    for (String u : List.of("file:///etc/passwd", "ftp://media.test/x.png", "gopher://x/")) {
      assertThatThrownBy(() -> fetcher.fetchPrefix(u, 4096).block())
          .isInstanceOfSatisfying(
              MediaException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BAD_URL));
    }
  }

  @Test
  void headerFetchIsRangeBoundedAndResolvesOnce() {
    lookups.clear();
    SafeHttpFetcher.Fetched f = fetcher.fetchPrefix(url("/hopper.png"), 4096).block();
    assertThat(f.bytes()).hasSize(4096);
    assertThat(f.complete()).isFalse();
    assertThat(server.lastRange.get("/hopper.png")).isEqualTo("bytes=0-4095");
    assertThat(lookups.get("media.test").get()).isEqualTo(1);
  }

  @Test
  void serversIgnoringRangeAreCutOff() {
    SafeHttpFetcher.Fetched f = fetcher.fetchPrefix(url("/norange/hopper.png"), 4096).block();
    assertThat(f.bytes()).hasSize(4096);
  }

  @Test
  void fullDownloadHasAByteCap() {
    assertThat(fetcher.fetchAll(url("/hopper.png"), 1 << 20).block().complete()).isTrue();
    assertThatThrownBy(() -> fetcher.fetchAll(url("/hopper.png"), 1000).block())
        .isInstanceOfSatisfying(
            MediaException.class, e -> assertThat(e.reason()).isEqualTo(Reason.TOO_LARGE));
  }

  @Test
  void slowServersTimeOut() {
    assertThatThrownBy(() -> fetcher.fetchPrefix(url("/slow/hopper.png"), 4096).block())
        .isInstanceOfSatisfying(
            MediaException.class, e -> assertThat(e.reason()).isEqualTo(Reason.TIMEOUT));
  }

  @Test
  void resolverReadsTheHeaderAndHashesTheUrl() {
    String u = url("/hopper.jpg");
    assertThat(resolver.resolveOne(u, false).block())
        .isEqualTo(new ResolvedImage(MmHashes.ofUrl(u), 128, 128));
    int hits = server.hits("/hopper.jpg");
    resolver.resolveOne(u, false).block(); // cached: no second fetch
    assertThat(server.hits("/hopper.jpg")).isEqualTo(hits);
  }

  @Test
  void mediaDecoderHashesTheBytes() throws Exception {
    byte[] bytes;
    try (var in = getClass().getResourceAsStream("/images/valid/pillow_pil_sample_cmyk.jpg")) {
      bytes = in.readAllBytes();
    }
    assertThat(resolver.resolveOne(url("/cmyk.jpg"), true).block())
        .isEqualTo(new ResolvedImage(MmHashes.ofBytes(bytes), 100, 100));
  }

  @Test
  void malformedRemoteImagesAre400() {
    assertThatThrownBy(() -> resolver.resolveOne(url("/broken.png"), false).block())
        .isInstanceOfSatisfying(
            MediaException.class, e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED));
    assertThatThrownBy(() -> resolver.resolveOne(url("/missing.png"), false).block())
        .isInstanceOfSatisfying(
            MediaException.class, e -> assertThat(e.reason()).isEqualTo(Reason.FETCH_FAILED));
  }
}
