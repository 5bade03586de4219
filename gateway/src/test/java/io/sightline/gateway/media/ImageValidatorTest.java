package io.sightline.gateway.media;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sightline.gateway.config.GatewayProperties;
import io.sightline.router.api.ResolvedImage;
import io.sightline.routing.multimodal.MmHashes;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Data-URI images through the whole resolver: valid ones resolve, the corrupt corpus gets 400s. */
class ImageValidatorTest {
  static final MediaResolver RESOLVER =
      new MediaResolver(
          new GatewayProperties().getMedia(),
          new SafeHttpFetcher(
              new AddressPolicy(false, List.of(), List.of(), Set.of()),
              HostResolver.SYSTEM,
              Duration.ofSeconds(1),
              Duration.ofSeconds(1),
              3,
              false),
          MediaCache.NONE,
          new SimpleMeterRegistry());

  @AfterAll
  static void close() {
    RESOLVER.close();
  }

  static byte[] resource(String path) throws IOException {
    try (InputStream in = ImageValidatorTest.class.getResourceAsStream("/images/" + path)) {
      return in.readAllBytes();
    }
  }

  static String dataUri(byte[] bytes) {
    return "data:image/x;base64," + Base64.getEncoder().encodeToString(bytes);
  }

  @ParameterizedTest
  @CsvSource({
    "pillow_hopper.png,128,128",
    "pillow_hopper.jpg,128,128",
    "pillow_hopper.webp,128,128",
    "pillow_hopper.gif,128,128",
    "pillow_pil_sample_cmyk.jpg,100,100",
    "smg_small.jpg,100,100",
    "pillow_transparent.webp,200,150",
    "pillow_dispose_bgnd.gif,100,100"
  })
  void validImagesResolve(String file, int w, int h) throws IOException {
    byte[] bytes = resource("valid/" + file);
    ResolvedImage img = RESOLVER.resolveOne(dataUri(bytes), false).block();
    assertThat(img).isEqualTo(new ResolvedImage(MmHashes.ofBytes(bytes), w, h));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "libpng_badadler.png",
        "libpng_badcrc.png",
        "libpng_huge_IDAT.png",
        "libpng_huge_iCCP_chunk.png",
        "pillow_broken.png",
        "pillow_broken_data_stream.png",
        "pillow_truncated_app14.jpg",
        "pillow_truncated_end_chunk.png",
        "pillow_truncated_image.png",
        "pillow_truncated_jpeg.jpg",
        "pillow_zero_width.gif"
      })
  void malformedImagesAreRejected(String file) throws IOException {
    byte[] bytes = resource("malformed/" + file);
    assertThatThrownBy(() -> RESOLVER.resolveOne(dataUri(bytes), false).block())
        .isInstanceOfSatisfying(
            MediaException.class,
            e -> {
              assertThat(e.status()).isEqualTo(400);
              assertThat(e.reason()).isEqualTo(MediaException.Reason.MALFORMED);
            });
  }

  @ParameterizedTest
  @ValueSource(strings = {"pillow_hopper.png", "pillow_hopper.jpg"})
  void pixelCapIsCheckedFromTheHeader(String file) throws IOException {
    GatewayProperties.Media tight = new GatewayProperties().getMedia();
    tight.setMaxPixels(128 * 127);
    MediaResolver r = new MediaResolver(tight, null, MediaCache.NONE, new SimpleMeterRegistry());
    try {
      assertThatThrownBy(() -> r.resolveOne(dataUri(resource("valid/" + file)), false).block())
          .isInstanceOfSatisfying(
              MediaException.class,
              e -> assertThat(e.reason()).isEqualTo(MediaException.Reason.TOO_MANY_PIXELS));
      tight.setMaxPixels(128 * 128);
      assertThatCode(() -> r.resolveOne(dataUri(resource("valid/" + file)), false).block())
          .doesNotThrowAnyException();
    } finally {
      r.close();
    }
  }
}
