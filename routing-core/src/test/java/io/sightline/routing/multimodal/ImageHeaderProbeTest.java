package io.sightline.routing.multimodal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.routing.multimodal.ProbeResult.Dimensions;
import io.sightline.routing.multimodal.ProbeResult.Malformed;
import io.sightline.routing.multimodal.ProbeResult.NeedMoreBytes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The header probe against the real images in {@code src/test/resources/images} (sizes from their
 * MANIFEST.md) and hand-built headers for the cases the corpus lacks (BMP, VP8L, fill bytes,
 * unusual marker order).
 */
class ImageHeaderProbeTest {

  static byte[] resource(String path) {
    try (InputStream in = ImageHeaderProbeTest.class.getResourceAsStream("/images/" + path)) {
      assertThat(in).as(path).isNotNull();
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @ParameterizedTest(name = "{0} is {1} {2}x{3}")
  @CsvSource({
    "valid/coco_000000039769.prefix4k.png, PNG, 640, 480",
    "valid/pillow_hopper.jpg, JPEG, 128, 128",
    "valid/pillow_hopper.png, PNG, 128, 128",
    "valid/pillow_hopper.webp, WEBP, 128, 128",
    "valid/pillow_hopper.gif, GIF, 128, 128",
    "valid/pillow_transparent.webp, WEBP, 200, 150",
    "valid/pillow_dispose_bgnd.gif, GIF, 100, 100",
    "valid/pillow_pil_sample_cmyk.jpg, JPEG, 100, 100",
    "valid/pillow_sugarshack_bad_mpo_header.jpg, JPEG, 640, 480",
    "valid/smg_tiny.jpg, JPEG, 64, 64",
    "valid/smg_small.jpg, JPEG, 100, 100",
    "valid/smg_square.jpg, JPEG, 500, 500",
    "valid/smg_wide.jpg, JPEG, 600, 300",
    "valid/smg_tall.jpg, JPEG, 300, 600",
    "valid/smg_very_wide.jpg, JPEG, 1000, 100",
    "valid/smg_very_tall.jpg, JPEG, 100, 1000",
    "valid/smg_odd_dims.jpg, JPEG, 337, 511",
    "valid/smg_grayscale.jpg, JPEG, 400, 300",
    "valid/smg_large.jpg, JPEG, 4000, 3000",
    // Malformed bodies behind intact headers: the header alone is fine.
    "malformed/pillow_truncated_image.png, PNG, 640, 480",
    "malformed/pillow_truncated_jpeg.jpg, JPEG, 100, 100",
    "malformed/pillow_broken_data_stream.png, PNG, 128, 128",
    "malformed/pillow_truncated_end_chunk.png, PNG, 128, 128",
    "malformed/libpng_badadler.png, PNG, 1, 1",
    "malformed/libpng_badcrc.png, PNG, 1, 1",
    "malformed/libpng_huge_IDAT.png, PNG, 2, 2",
    "malformed/libpng_huge_iCCP_chunk.png, PNG, 1, 1",
  })
  void readsTrueSizeFromHeader(String file, ImageFormat format, int w, int h) {
    byte[] bytes = resource(file);
    assertThat(ImageHeaderProbe.probe(bytes)).isEqualTo(new Dimensions(format, w, h));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "valid/coco_000000039769.prefix4k.png",
    "valid/pillow_hopper.jpg",
    "valid/pillow_hopper.webp",
    "valid/pillow_hopper.gif",
    "valid/pillow_transparent.webp",
    "valid/pillow_sugarshack_bad_mpo_header.jpg",
    "valid/smg_large.jpg",
    "malformed/pillow_truncated_jpeg.jpg",
  })
  void everyShorterPrefixAsksForMoreBytesAndCompleteOnesAreTruncated(String file) {
    byte[] bytes = resource(file);
    Dimensions full = (Dimensions) ImageHeaderProbe.probe(bytes);
    int firstGood = -1;
    for (int n = 0; n <= Math.min(bytes.length, ImageHeaderProbe.MAX_PREFIX); n++) {
      ProbeResult r = ImageHeaderProbe.probe(bytes, 0, n, false);
      if (r instanceof Dimensions d) {
        assertThat(d).isEqualTo(full);
        firstGood = n;
        break;
      }
      assertThat(r).as("prefix of %d bytes", n).isInstanceOf(NeedMoreBytes.class);
      NeedMoreBytes more = (NeedMoreBytes) r;
      assertThat(more.atLeast()).as("prefix of %d bytes", n).isGreaterThan(n);
      ProbeResult asWhole = ImageHeaderProbe.probe(bytes, 0, n, true);
      assertThat(asWhole).isInstanceOf(Malformed.class);
    }
    assertThat(firstGood).isPositive();
    // Once known, the size stays known for every longer prefix (spot check the end).
    assertThat(ImageHeaderProbe.probe(bytes, 0, Math.min(bytes.length, firstGood + 512), false))
        .isEqualTo(full);
  }

  @Test
  void needMoreBytesLowerBoundIsEnoughForJpegSegmentsSkippedByLength() {
    byte[] bytes = resource("valid/smg_large.jpg");
    int n = 2;
    int steps = 0;
    ProbeResult r;
    // Following the hints reaches the answer in few steps, like a Range-GET client would.
    while ((r = ImageHeaderProbe.probe(bytes, 0, n, false)) instanceof NeedMoreBytes more) {
      n = more.atLeast();
      steps++;
    }
    assertThat(r).isEqualTo(new Dimensions(ImageFormat.JPEG, 4000, 3000));
    assertThat(steps).isLessThan(20);
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource({
    "malformed/pillow_broken.png, first chunk is not IHDR",
    "malformed/pillow_zero_width.gif, logical screen size is 0x32",
    "malformed/pillow_truncated_app14.jpg, expected a marker",
  })
  void malformedHeadersGiveAClearError(String file, String reason) {
    ProbeResult r = ImageHeaderProbe.probe(resource(file));
    assertThat(r).isInstanceOf(Malformed.class);
    assertThat(((Malformed) r).reason()).contains(reason);
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource({
    "malformed/pillow_truncated_image.png, claims 105514 bytes, past the end",
    "malformed/pillow_truncated_jpeg.jpg, no EOI",
    "malformed/pillow_broken_data_stream.png, CRC mismatch in chunk 'IDAT'",
    "malformed/pillow_truncated_end_chunk.png, past the end",
    "malformed/libpng_badadler.png, corrupt image data",
    "malformed/libpng_badcrc.png, CRC mismatch in chunk 'IDAT'",
    "malformed/libpng_huge_IDAT.png, claims 1073741823 bytes",
    "malformed/libpng_huge_iCCP_chunk.png, chunk 'iCCP'",
    "malformed/pillow_broken.png, first chunk is not IHDR",
    "malformed/pillow_zero_width.gif, logical screen size",
    "malformed/pillow_truncated_app14.jpg, expected a marker",
  })
  void everyMalformedFileFailsTheFullCheck(String file, String reason) {
    ProbeResult r = ImageFileCheck.check(resource(file));
    assertThat(r).isInstanceOf(Malformed.class);
    assertThat(((Malformed) r).reason()).contains(reason);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "valid/pillow_hopper.jpg",
    "valid/pillow_hopper.png",
    "valid/pillow_hopper.webp",
    "valid/pillow_hopper.gif",
    "valid/pillow_transparent.webp",
    "valid/pillow_dispose_bgnd.gif",
    "valid/pillow_pil_sample_cmyk.jpg",
    "valid/smg_tiny.jpg",
    "valid/smg_odd_dims.jpg",
    "valid/smg_large.jpg",
  })
  void everyValidFilePassesTheFullCheck(String file) {
    byte[] bytes = resource(file);
    assertThat(ImageFileCheck.check(bytes)).isEqualTo(ImageHeaderProbe.probe(bytes));
    // and cutting its last bytes off is caught
    assertThat(ImageFileCheck.check(Arrays.copyOf(bytes, bytes.length - 3)))
        .isInstanceOf(Malformed.class);
  }

  @Test
  void mpoFilePassesItsFirstImageIsChecked() {
    // An MPO is several JPEGs back to back; the first ends at its EOI, the rest is trailing data.
    byte[] bytes = resource("valid/pillow_sugarshack_bad_mpo_header.jpg");
    assertThat(ImageFileCheck.check(bytes)).isEqualTo(new Dimensions(ImageFormat.JPEG, 640, 480));
    assertThat(ImageFileCheck.check(Arrays.copyOf(bytes, 9000))).isInstanceOf(Malformed.class);
  }

  @Test
  void jpegMarkerOrderFillBytesAndProgressiveFrames() {
    // SOI, DQT, fill bytes, DHT, APP0 after tables, then a progressive SOF2 of 3 components.
    ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.BIG_ENDIAN);
    b.put(new byte[] {(byte) 0xFF, (byte) 0xD8});
    b.put(new byte[] {(byte) 0xFF, (byte) 0xDB, 0, 5, 1, 2, 3});
    b.put(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xC4, 0, 3, 9});
    b.put(new byte[] {(byte) 0xFF, (byte) 0xE0, 0, 4, 'J', 'F'});
    b.put(new byte[] {(byte) 0xFF, (byte) 0xC2, 0, 17, 8});
    b.putShort((short) 1080).putShort((short) 1920).put((byte) 3);
    b.put(new byte[9]);
    byte[] bytes = Arrays.copyOf(b.array(), b.position());
    assertThat(ImageHeaderProbe.probe(bytes))
        .isEqualTo(new Dimensions(ImageFormat.JPEG, 1920, 1080));
    // A scan before any frame header is malformed.
    byte[] sosFirst = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xDA, 0, 2};
    assertThat(ImageHeaderProbe.probe(sosFirst)).isInstanceOf(Malformed.class);
  }

  @Test
  void bmpCoreAndInfoHeadersIncludingTopDown() {
    ByteBuffer info = ByteBuffer.allocate(54).order(ByteOrder.LITTLE_ENDIAN);
    info.put((byte) 'B').put((byte) 'M').putInt(54).putInt(0).putInt(54);
    info.putInt(40).putInt(300).putInt(-200).putShort((short) 1).putShort((short) 24);
    assertThat(ImageHeaderProbe.probe(info.array()))
        .isEqualTo(new Dimensions(ImageFormat.BMP, 300, 200));

    ByteBuffer core = ByteBuffer.allocate(26).order(ByteOrder.LITTLE_ENDIAN);
    core.put((byte) 'B').put((byte) 'M').putInt(26).putInt(0).putInt(26);
    core.putInt(12).putShort((short) 7).putShort((short) 9);
    assertThat(ImageHeaderProbe.probe(core.array()))
        .isEqualTo(new Dimensions(ImageFormat.BMP, 7, 9));

    info.putInt(18, 0);
    assertThat(ImageHeaderProbe.probe(info.array())).isInstanceOf(Malformed.class);
    assertThat(ImageHeaderProbe.probe(Arrays.copyOf(core.array(), 20)))
        .isEqualTo(
            new NeedMoreBytes(ImageFormat.BMP, 22, "header continues past the available bytes"));
  }

  @Test
  void webpLosslessAndExtended() {
    ByteBuffer l = ByteBuffer.allocate(30).order(ByteOrder.LITTLE_ENDIAN);
    l.put("RIFF".getBytes()).putInt(22).put("WEBP".getBytes()).put("VP8L".getBytes()).putInt(10);
    l.put((byte) 0x2F).putInt((4095 - 1) | ((17 - 1) << 14));
    assertThat(ImageHeaderProbe.probe(l.array()))
        .isEqualTo(new Dimensions(ImageFormat.WEBP, 4095, 17));

    ByteBuffer x = ByteBuffer.allocate(30).order(ByteOrder.LITTLE_ENDIAN);
    x.put("RIFF".getBytes()).putInt(22).put("WEBP".getBytes()).put("VP8X".getBytes()).putInt(10);
    x.putInt(0x10).put(new byte[] {(byte) 0xFF, (byte) 0xFF, 0x00}).put(new byte[] {0x01, 0, 0});
    assertThat(ImageHeaderProbe.probe(x.array()))
        .isEqualTo(new Dimensions(ImageFormat.WEBP, 65536, 2));
  }

  @Test
  void fullCheckOfTinyTruncatedFilesGivesReasonsNotInternalErrors() {
    byte[] gif = resource("valid/pillow_hopper.gif");
    for (int n = 0; n < 64; n++) {
      ProbeResult r = ImageFileCheck.check(Arrays.copyOf(gif, n));
      assertThat(r).isInstanceOf(Malformed.class);
      assertThat(((Malformed) r).reason()).doesNotContain("internal").doesNotContain("Exception");
    }
  }

  @Test
  void unknownFormatsAndBadSlices() {
    assertThat(ImageHeaderProbe.probe("GIF90a-not".getBytes())).isInstanceOf(Malformed.class);
    assertThat(ImageHeaderProbe.probe(new byte[] {0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 0, 0, 0, 0}))
        .isInstanceOf(Malformed.class); // TIFF
    assertThat(ImageHeaderProbe.probe(new byte[] {(byte) 0x89, 'P'}))
        .isInstanceOf(NeedMoreBytes.class);
    assertThat(ImageHeaderProbe.probe(new byte[0])).isInstanceOf(NeedMoreBytes.class);
    assertThat(ImageHeaderProbe.probe(null)).isInstanceOf(Malformed.class);
    assertThat(ImageHeaderProbe.probe(new byte[10], 8, 5, false)).isInstanceOf(Malformed.class);
    assertThat(ImageHeaderProbe.probe(new byte[10], -1, 2, false)).isInstanceOf(Malformed.class);
  }

  @Test
  void sliceOffsetIsHonouredAndNothingPastItIsRead() {
    byte[] png = resource("valid/pillow_hopper.png");
    byte[] padded = new byte[png.length + 100];
    System.arraycopy(png, 0, padded, 50, 40);
    assertThat(ImageHeaderProbe.probe(padded, 50, 40, false))
        .isEqualTo(new Dimensions(ImageFormat.PNG, 128, 128));
    // The same 32 bytes followed by garbage outside the slice: still asks for more.
    assertThat(ImageHeaderProbe.probe(padded, 50, 32, false)).isInstanceOf(NeedMoreBytes.class);
  }

  @Property(tries = 400)
  void mutatedRealImagesNeverBreakTheCheckers(
      @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 4) int which,
      @ForAll @Size(max = 8)
          java.util.List<@net.jqwik.api.constraints.IntRange(min = 0, max = 400) Integer> flips,
      @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 100) int keepPercent) {
    String[] files = {
      "valid/pillow_hopper.png",
      "valid/pillow_hopper.gif",
      "valid/pillow_hopper.jpg",
      "valid/pillow_transparent.webp",
      "valid/pillow_dispose_bgnd.gif"
    };
    byte[] bytes = resource(files[which]);
    for (int f : flips) {
      bytes[Math.min(f, bytes.length - 1)] ^= (byte) (0x5A + f);
    }
    bytes = Arrays.copyOf(bytes, (int) ((long) bytes.length * keepPercent / 100));
    for (ProbeResult r :
        new ProbeResult[] {ImageHeaderProbe.probe(bytes), ImageFileCheck.check(bytes)}) {
      assertThat(r).isNotNull();
      if (r instanceof Malformed m) {
        assertThat(m.reason()).doesNotContain("internal error").doesNotContain("check failed");
      }
    }
  }

  @Property(tries = 1000)
  void neverThrowsOnArbitraryBytes(@ForAll @Size(max = 200) byte[] junk) {
    for (byte[] sig :
        new byte[][] {
          {},
          {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'},
          {(byte) 0xFF, (byte) 0xD8},
          "GIF89a".getBytes(),
          "RIFF\0\0\0\0WEBP".getBytes(),
          "BM".getBytes()
        }) {
      byte[] bytes = new byte[sig.length + junk.length];
      System.arraycopy(sig, 0, bytes, 0, sig.length);
      System.arraycopy(junk, 0, bytes, sig.length, junk.length);
      for (ProbeResult r :
          new ProbeResult[] {ImageHeaderProbe.probe(bytes), ImageFileCheck.check(bytes)}) {
        assertThat(r).isNotNull();
        if (r instanceof Malformed m) {
          // Reasons come from the format checks, never from a caught runtime exception.
          assertThat(m.reason()).doesNotContain("internal error").doesNotContain("check failed");
        }
      }
    }
  }
}
