package io.sightline.routing.multimodal;

import io.sightline.routing.multimodal.ProbeResult.Dimensions;
import io.sightline.routing.multimodal.ProbeResult.Malformed;
import io.sightline.routing.multimodal.ProbeResult.NeedMoreBytes;
import java.util.zip.CRC32;

/**
 * Reads an image's format and pixel size from its first bytes, without decoding pixels.
 *
 * <p>Why: the router must know each image's size to count its image tokens before the request
 * reaches an engine, and it must do so cheaply from a bounded prefix (Dynamo fetches {@code Range:
 * bytes=0-4095}, then up to 64 KiB; {@code ../shared/reference/dynamo.md} §5 step 3). The probe
 * therefore looks at no more than {@value #MAX_PREFIX} bytes, never reads outside the slice it is
 * given, and never throws: every outcome is a {@link ProbeResult}.
 *
 * <p>Formats and where the size lives:
 *
 * <ul>
 *   <li>PNG: the IHDR chunk, which must come first; its CRC and field values are checked.
 *   <li>JPEG: the first SOFn segment (baseline, extended, progressive, lossless, arithmetic). The
 *       marker segments before it (APPn, DQT, DHT, DRI, COM, …) may come in any order and are
 *       skipped by their length; the walk is strict, so a segment whose length does not land on the
 *       next marker is malformed (Pillow's {@code truncated_app14.jpg}). Fill bytes {@code 0xFF}
 *       before a marker are allowed (ITU T.81 B.1.1.2).
 *   <li>GIF: the logical screen descriptor (as Pillow reports it).
 *   <li>WebP: the first chunk, {@code VP8 } (key-frame header), {@code VP8L} (bit-packed 14-bit
 *       sizes) or {@code VP8X} (24-bit canvas size).
 *   <li>BMP: the DIB header ({@code BITMAPCOREHEADER} 16-bit sizes, or 32-bit signed sizes with a
 *       negative height meaning top-down rows).
 * </ul>
 *
 * <p>"Need more bytes" versus "malformed": when the slice ends before the size is known, and
 * nothing seen so far is wrong, the answer is {@link NeedMoreBytes} with a lower bound on the total
 * bytes needed — unless the caller said the slice is the complete file, or the bound is beyond
 * {@value #MAX_PREFIX} bytes, in which case it is {@link Malformed}.
 */
public final class ImageHeaderProbe {
  /** The largest prefix the probe looks at (Dynamo fetches at most 64 KiB with a Range GET). */
  public static final int MAX_PREFIX = 64 * 1024;

  private static final byte[] PNG_SIG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  private static final byte[] GIF87 = {'G', 'I', 'F', '8', '7', 'a'};
  private static final byte[] GIF89 = {'G', 'I', 'F', '8', '9', 'a'};
  private static final byte[] RIFF = {'R', 'I', 'F', 'F'};
  private static final byte[] WEBP = {'W', 'E', 'B', 'P'};
  private static final byte[] JPEG_SOI = {(byte) 0xFF, (byte) 0xD8};
  private static final byte[] BMP_SIG = {'B', 'M'};

  private ImageHeaderProbe() {}

  /** Probes a prefix of an image (its first bytes, maybe the whole file). */
  public static ProbeResult probe(byte[] bytes) {
    return probe(bytes, 0, bytes == null ? 0 : bytes.length, false);
  }

  /**
   * Probes {@code length} bytes at {@code offset}. When {@code complete} is true the bytes are the
   * entire file, so running out of bytes is reported as {@link Malformed} (truncated) rather than
   * {@link NeedMoreBytes}. Bytes beyond {@value #MAX_PREFIX} are ignored.
   */
  public static ProbeResult probe(byte[] bytes, int offset, int length, boolean complete) {
    if (bytes == null) {
      return new Malformed(null, "no bytes");
    }
    if (offset < 0 || length < 0 || offset > bytes.length - length) {
      return new Malformed(
          null,
          "invalid slice offset="
              + offset
              + " length="
              + length
              + " of "
              + bytes.length
              + " bytes");
    }
    boolean capped = length > MAX_PREFIX;
    Reader r = new Reader(bytes, offset, Math.min(length, MAX_PREFIX), complete && !capped);
    try {
      return sniff(r);
    } catch (Short s) {
      return r.shortResult(s);
    } catch (RuntimeException e) {
      // Defensive: the parsers index only through Reader, which checks bounds; this is unreachable
      // by design but a probe must never throw out.
      return new Malformed(r.format, "internal error while probing: " + e);
    }
  }

  private static ProbeResult sniff(Reader r) throws Short {
    if (r.startsWith(PNG_SIG)) {
      r.format = ImageFormat.PNG;
      return png(r);
    }
    if (r.startsWith(JPEG_SOI)) {
      r.format = ImageFormat.JPEG;
      return jpeg(r);
    }
    if (r.startsWith(GIF87) || r.startsWith(GIF89)) {
      r.format = ImageFormat.GIF;
      return gif(r);
    }
    if (r.startsWith(RIFF) && r.len >= 12 && r.regionEquals(8, WEBP)) {
      r.format = ImageFormat.WEBP;
      return webp(r);
    }
    if (r.startsWith(BMP_SIG)) {
      r.format = ImageFormat.BMP;
      return bmp(r);
    }
    // Could the bytes still become a known signature?
    if (r.len < 12
        && (r.isPrefixOf(PNG_SIG)
            || r.isPrefixOf(JPEG_SOI)
            || r.isPrefixOf(GIF87)
            || r.isPrefixOf(GIF89)
            || r.isPrefixOf(BMP_SIG)
            || (r.isPrefixOf(RIFF) || (r.startsWith(RIFF) && r.isPrefixOfAt(8, WEBP))))) {
      throw new Short(12, "signature incomplete");
    }
    return new Malformed(
        null, "not a PNG, JPEG, GIF, WebP or BMP image (first bytes " + r.hex(8) + ")");
  }

  // ---- PNG: signature, then IHDR (length 13) with CRC ----

  private static ProbeResult png(Reader r) throws Short {
    long chunkLen = r.u32be(8);
    if (!r.regionEquals(12, new byte[] {'I', 'H', 'D', 'R'})) {
      return new Malformed(ImageFormat.PNG, "first chunk is not IHDR");
    }
    if (chunkLen != 13) {
      return new Malformed(ImageFormat.PNG, "IHDR length is " + chunkLen + ", expected 13");
    }
    long w = r.u32be(16);
    long h = r.u32be(20);
    int depth = r.u8(24);
    int colour = r.u8(25);
    int compression = r.u8(26);
    int filter = r.u8(27);
    int interlace = r.u8(28);
    long crc = r.u32be(29);
    CRC32 c = new CRC32();
    c.update(r.buf, r.off + 12, 17);
    if (c.getValue() != crc) {
      return new Malformed(ImageFormat.PNG, "IHDR CRC mismatch");
    }
    if (w == 0 || h == 0 || w > Integer.MAX_VALUE || h > Integer.MAX_VALUE) {
      return new Malformed(ImageFormat.PNG, "invalid size " + w + "x" + h);
    }
    if (!validPngDepth(colour, depth)) {
      return new Malformed(
          ImageFormat.PNG, "invalid bit depth " + depth + " for colour type " + colour);
    }
    if (compression != 0 || filter != 0 || interlace > 1) {
      return new Malformed(ImageFormat.PNG, "invalid compression/filter/interlace method");
    }
    return new Dimensions(ImageFormat.PNG, (int) w, (int) h);
  }

  private static boolean validPngDepth(int colour, int depth) {
    return switch (colour) {
      case 0 -> depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
      case 3 -> depth == 1 || depth == 2 || depth == 4 || depth == 8;
      case 2, 4, 6 -> depth == 8 || depth == 16;
      default -> false;
    };
  }

  // ---- JPEG: marker walk to the first SOFn ----

  private static ProbeResult jpeg(Reader r) throws Short {
    int p = 2;
    while (true) {
      int b = r.u8(p);
      if (b != 0xFF) {
        return new Malformed(
            ImageFormat.JPEG,
            String.format("expected a marker at offset %d, found byte 0x%02x", p, b));
      }
      // Skip fill bytes.
      while (r.u8(p + 1) == 0xFF) {
        p++;
      }
      int m = r.u8(p + 1);
      p += 2;
      if (m == 0x00) {
        return new Malformed(ImageFormat.JPEG, "stuffed byte 0xFF00 outside entropy-coded data");
      }
      if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {
        continue; // TEM, RSTn: no length
      }
      if (m == 0xD8) {
        return new Malformed(ImageFormat.JPEG, "second SOI marker before a frame header");
      }
      if (m == 0xD9) {
        return new Malformed(ImageFormat.JPEG, "EOI before any frame header");
      }
      if (m == 0xDA) {
        return new Malformed(ImageFormat.JPEG, "scan (SOS) before any frame header");
      }
      int segLen = r.u16be(p);
      if (segLen < 2) {
        return new Malformed(
            ImageFormat.JPEG, String.format("marker 0x%02x has invalid length %d", m, segLen));
      }
      if (isSof(m)) {
        if (segLen < 8) {
          return new Malformed(ImageFormat.JPEG, "frame header too short (" + segLen + ")");
        }
        int height = r.u16be(p + 3);
        int width = r.u16be(p + 5);
        int components = r.u8(p + 7);
        if (width == 0) {
          return new Malformed(ImageFormat.JPEG, "frame width is 0");
        }
        if (height == 0) {
          return new Malformed(
              ImageFormat.JPEG, "frame height is 0 (defined by a DNL marker; not supported)");
        }
        if (components == 0 || segLen != 8 + 3 * components) {
          return new Malformed(
              ImageFormat.JPEG,
              "frame header length " + segLen + " does not match " + components + " components");
        }
        return new Dimensions(ImageFormat.JPEG, width, height);
      }
      p += segLen;
    }
  }

  private static boolean isSof(int m) {
    return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
  }

  // ---- GIF: logical screen descriptor ----

  private static ProbeResult gif(Reader r) throws Short {
    int w = r.u16le(6);
    int h = r.u16le(8);
    if (w == 0 || h == 0) {
      return new Malformed(ImageFormat.GIF, "logical screen size is " + w + "x" + h);
    }
    return new Dimensions(ImageFormat.GIF, w, h);
  }

  // ---- WebP: RIFF + first chunk ----

  private static ProbeResult webp(Reader r) throws Short {
    long riffSize = r.u32le(4);
    if (riffSize < 12) {
      return new Malformed(ImageFormat.WEBP, "RIFF size " + riffSize + " too small");
    }
    byte[] fourcc = r.bytes(12, 4);
    long chunkSize = r.u32le(16);
    String kind = new String(fourcc, java.nio.charset.StandardCharsets.ISO_8859_1);
    switch (kind) {
      case "VP8 " -> {
        if (chunkSize < 10) {
          return new Malformed(ImageFormat.WEBP, "VP8 chunk too small");
        }
        int tag = r.u8(20);
        if ((tag & 1) != 0) {
          return new Malformed(ImageFormat.WEBP, "VP8 bitstream does not start with a key frame");
        }
        if (r.u8(23) != 0x9D || r.u8(24) != 0x01 || r.u8(25) != 0x2A) {
          return new Malformed(ImageFormat.WEBP, "VP8 start code missing");
        }
        int w = r.u16le(26) & 0x3FFF;
        int h = r.u16le(28) & 0x3FFF;
        if (w == 0 || h == 0) {
          return new Malformed(ImageFormat.WEBP, "VP8 size is " + w + "x" + h);
        }
        return new Dimensions(ImageFormat.WEBP, w, h);
      }
      case "VP8L" -> {
        if (chunkSize < 5) {
          return new Malformed(ImageFormat.WEBP, "VP8L chunk too small");
        }
        if (r.u8(20) != 0x2F) {
          return new Malformed(ImageFormat.WEBP, "VP8L signature byte missing");
        }
        long bits = r.u32le(21);
        int w = (int) (bits & 0x3FFF) + 1;
        int h = (int) ((bits >>> 14) & 0x3FFF) + 1;
        if ((bits >>> 29) != 0) {
          return new Malformed(ImageFormat.WEBP, "VP8L version is not 0");
        }
        return new Dimensions(ImageFormat.WEBP, w, h);
      }
      case "VP8X" -> {
        if (chunkSize < 10) {
          return new Malformed(ImageFormat.WEBP, "VP8X chunk too small");
        }
        int w = r.u24le(24) + 1;
        int h = r.u24le(27) + 1;
        return new Dimensions(ImageFormat.WEBP, w, h);
      }
      default -> {
        return new Malformed(ImageFormat.WEBP, "unknown first chunk '" + printable(fourcc) + "'");
      }
    }
  }

  // ---- BMP: file header + DIB header ----

  private static ProbeResult bmp(Reader r) throws Short {
    long dibSize = r.u32le(14);
    long w;
    long h;
    if (dibSize == 12) {
      w = r.u16le(18);
      h = r.u16le(20);
    } else if (dibSize == 16
        || dibSize == 40
        || dibSize == 52
        || dibSize == 56
        || dibSize == 64
        || dibSize == 108
        || dibSize == 124) {
      w = r.i32le(18);
      h = r.i32le(22);
      h = Math.abs(h); // negative height: rows stored top-down
    } else {
      return new Malformed(ImageFormat.BMP, "unknown DIB header size " + dibSize);
    }
    if (w <= 0 || h <= 0 || w > Integer.MAX_VALUE || h > Integer.MAX_VALUE) {
      return new Malformed(ImageFormat.BMP, "invalid size " + w + "x" + h);
    }
    return new Dimensions(ImageFormat.BMP, (int) w, (int) h);
  }

  private static String printable(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) {
      int c = x & 0xFF;
      sb.append(c >= 0x20 && c < 0x7F ? (char) c : '?');
    }
    return sb.toString();
  }

  /** Thrown internally when a read goes past the available bytes. */
  private static final class Short extends Exception {
    final long atLeast;

    Short(long atLeast, String why) {
      super(why, null, false, false);
      this.atLeast = atLeast;
    }
  }

  /** Bounds-checked big/little-endian reads over a slice. */
  private static final class Reader {
    final byte[] buf;
    final int off;
    final int len;
    final boolean complete;
    ImageFormat format;

    Reader(byte[] buf, int off, int len, boolean complete) {
      this.buf = buf;
      this.off = off;
      this.len = len;
      this.complete = complete;
    }

    ProbeResult shortResult(Short s) {
      if (complete) {
        return new Malformed(
            format,
            "file truncated: header needs at least " + s.atLeast + " bytes, file has " + len);
      }
      if (s.atLeast > MAX_PREFIX) {
        return new Malformed(
            format, "image size not found within the first " + MAX_PREFIX + " bytes");
      }
      return new NeedMoreBytes(format, (int) s.atLeast, s.getMessage());
    }

    void need(int pos, int n) throws Short {
      if (pos < 0) {
        throw new Short(Long.MAX_VALUE, "offset overflow");
      }
      if ((long) pos + n > len) {
        throw new Short((long) pos + n, "header continues past the available bytes");
      }
    }

    int u8(int pos) throws Short {
      need(pos, 1);
      return buf[off + pos] & 0xFF;
    }

    int u16be(int pos) throws Short {
      need(pos, 2);
      return ((buf[off + pos] & 0xFF) << 8) | (buf[off + pos + 1] & 0xFF);
    }

    int u16le(int pos) throws Short {
      need(pos, 2);
      return (buf[off + pos] & 0xFF) | ((buf[off + pos + 1] & 0xFF) << 8);
    }

    int u24le(int pos) throws Short {
      need(pos, 3);
      return (buf[off + pos] & 0xFF)
          | ((buf[off + pos + 1] & 0xFF) << 8)
          | ((buf[off + pos + 2] & 0xFF) << 16);
    }

    long u32be(int pos) throws Short {
      need(pos, 4);
      return ((long) u16be(pos) << 16) | u16be(pos + 2);
    }

    long u32le(int pos) throws Short {
      need(pos, 4);
      return u16le(pos) | ((long) u16le(pos + 2) << 16);
    }

    int i32le(int pos) throws Short {
      return (int) u32le(pos);
    }

    byte[] bytes(int pos, int n) throws Short {
      need(pos, n);
      byte[] out = new byte[n];
      System.arraycopy(buf, off + pos, out, 0, n);
      return out;
    }

    boolean startsWith(byte[] sig) {
      return len >= sig.length && regionEqualsUnchecked(0, sig);
    }

    boolean regionEquals(int pos, byte[] sig) throws Short {
      need(pos, sig.length);
      return regionEqualsUnchecked(pos, sig);
    }

    private boolean regionEqualsUnchecked(int pos, byte[] sig) {
      for (int i = 0; i < sig.length; i++) {
        if (buf[off + pos + i] != sig[i]) {
          return false;
        }
      }
      return true;
    }

    /** The available bytes are a (possibly complete) prefix of {@code sig}. */
    boolean isPrefixOf(byte[] sig) {
      return isPrefixOfAt(0, sig);
    }

    boolean isPrefixOfAt(int pos, byte[] sig) {
      int n = Math.min(len - pos, sig.length);
      for (int i = 0; i < n; i++) {
        if (buf[off + pos + i] != sig[i]) {
          return false;
        }
      }
      return true;
    }

    String hex(int n) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < Math.min(n, len); i++) {
        sb.append(String.format("%02x", buf[off + i] & 0xFF));
      }
      return sb.toString();
    }
  }
}
