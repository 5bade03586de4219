package io.sightline.routing.multimodal;

import io.sightline.routing.multimodal.ProbeResult.Dimensions;
import io.sightline.routing.multimodal.ProbeResult.Malformed;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * A structural check of a <em>complete</em> image file, for callers that hold the whole file (a
 * {@code data:} URI, a local file) and want to refuse corrupt images before an engine does.
 *
 * <p>{@link ImageHeaderProbe} only reads the header, so a file whose header is intact but whose
 * body is cut off or corrupt still probes fine. This check goes further without decoding pixels:
 *
 * <ul>
 *   <li>PNG: walks every chunk, checks each length against the file, each CRC-32, that IDAT is
 *       present, and that the file ends with IEND; the concatenated IDAT data must be a complete
 *       zlib stream with a correct Adler-32 (inflated into a scratch buffer and discarded; no
 *       unfiltering or pixel work).
 *   <li>JPEG: walks the marker segments, through every scan's entropy-coded data, to EOI.
 *   <li>GIF: walks the blocks (image descriptors, colour tables, extensions, sub-blocks) to the
 *       trailer.
 *   <li>WebP: the RIFF size must fit in the file.
 *   <li>BMP: the pixel-data offset must lie inside the file.
 * </ul>
 *
 * <p>It never throws; the answer is the header's {@link Dimensions} or a {@link Malformed} reason.
 */
public final class ImageFileCheck {
  private ImageFileCheck() {}

  /** Checks the whole file {@code bytes}. */
  public static ProbeResult check(byte[] bytes) {
    ProbeResult header = ImageHeaderProbe.probe(bytes, 0, bytes == null ? 0 : bytes.length, true);
    if (!(header instanceof Dimensions d)) {
      return header;
    }
    try {
      String problem =
          switch (d.format()) {
            case PNG -> png(bytes);
            case JPEG -> jpeg(bytes);
            case GIF -> gif(bytes);
            case WEBP -> webp(bytes);
            case BMP -> bmp(bytes);
          };
      return problem == null ? d : new Malformed(d.format(), problem);
    } catch (RuntimeException e) {
      return new Malformed(d.format(), "structure check failed: " + e);
    }
  }

  private static long u32be(byte[] b, int p) {
    return ((b[p] & 0xFFL) << 24)
        | ((b[p + 1] & 0xFF) << 16)
        | ((b[p + 2] & 0xFF) << 8)
        | (b[p + 3] & 0xFF);
  }

  private static long u32le(byte[] b, int p) {
    return (b[p] & 0xFF)
        | ((b[p + 1] & 0xFF) << 8)
        | ((b[p + 2] & 0xFF) << 16)
        | ((b[p + 3] & 0xFFL) << 24);
  }

  private static String png(byte[] b) {
    int p = 8;
    boolean sawIdat = false;
    boolean idatDone = false;
    Inflater inflater = new Inflater();
    byte[] scratch = new byte[64 * 1024];
    try {
      while (true) {
        if (p + 8 > b.length) {
          return "file truncated: no IEND chunk";
        }
        long len = u32be(b, p);
        String type = new String(b, p + 4, 4, java.nio.charset.StandardCharsets.ISO_8859_1);
        if (len > Integer.MAX_VALUE || p + 12 + len > b.length) {
          return "chunk '"
              + printable(type)
              + "' at offset "
              + p
              + " claims "
              + len
              + " bytes, past the end of the file";
        }
        int n = (int) len;
        CRC32 crc = new CRC32();
        crc.update(b, p + 4, 4 + n);
        if (crc.getValue() != u32be(b, p + 8 + n)) {
          return "CRC mismatch in chunk '" + printable(type) + "' at offset " + p;
        }
        if (type.equals("IDAT")) {
          if (idatDone) {
            return "IDAT chunks are not consecutive";
          }
          sawIdat = true;
          inflater.setInput(b, p + 8, n);
          String err = drain(inflater, scratch);
          if (err != null) {
            return err;
          }
        } else if (sawIdat) {
          idatDone = true;
        }
        p += 12 + n;
        if (type.equals("IEND")) {
          break;
        }
      }
      if (!sawIdat) {
        return "no IDAT chunk";
      }
      if (!inflater.finished()) {
        return "image data (zlib stream) ends early";
      }
      return null;
    } finally {
      inflater.end();
    }
  }

  private static String drain(Inflater inflater, byte[] scratch) {
    try {
      while (!inflater.needsInput() && !inflater.finished()) {
        int got = inflater.inflate(scratch);
        if (got == 0 && inflater.needsDictionary()) {
          return "image data needs a preset dictionary";
        }
        if (got == 0 && !inflater.needsInput() && !inflater.finished()) {
          return "image data (zlib stream) is stuck";
        }
      }
      return null;
    } catch (DataFormatException e) {
      return "corrupt image data (zlib): " + e.getMessage();
    }
  }

  private static String jpeg(byte[] b) {
    int p = 2;
    while (true) {
      if (p + 2 > b.length) {
        return "file truncated: no EOI marker";
      }
      if ((b[p] & 0xFF) != 0xFF) {
        return String.format("expected a marker at offset %d, found 0x%02x", p, b[p] & 0xFF);
      }
      while (p + 1 < b.length && (b[p + 1] & 0xFF) == 0xFF) {
        p++;
      }
      if (p + 1 >= b.length) {
        return "file truncated: no EOI marker";
      }
      int m = b[p + 1] & 0xFF;
      p += 2;
      if (m == 0xD9) {
        return null;
      }
      if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {
        continue;
      }
      if (p + 2 > b.length) {
        return "file truncated inside a marker segment";
      }
      int segLen = ((b[p] & 0xFF) << 8) | (b[p + 1] & 0xFF);
      if (segLen < 2 || p + segLen > b.length) {
        return String.format("marker 0x%02x segment at offset %d runs past the end", m, p - 2);
      }
      p += segLen;
      if (m == 0xDA) {
        // Entropy-coded data: runs until a marker other than RSTn or a stuffed 0xFF00.
        while (true) {
          if (p + 1 >= b.length) {
            return "file truncated inside scan data (no EOI)";
          }
          if ((b[p] & 0xFF) == 0xFF) {
            int n = b[p + 1] & 0xFF;
            if (n == 0x00 || (n >= 0xD0 && n <= 0xD7) || n == 0xFF) {
              p += n == 0xFF ? 1 : 2;
              continue;
            }
            break;
          }
          p++;
        }
      }
    }
  }

  private static String gif(byte[] b) {
    if (b.length < 13) {
      return "file truncated inside the logical screen descriptor";
    }
    int p = 13;
    int flags = b[10] & 0xFF;
    if ((flags & 0x80) != 0) {
      p += 3 * (1 << ((flags & 7) + 1));
    }
    int frames = 0;
    while (true) {
      if (p >= b.length) {
        return "file truncated: no trailer";
      }
      int id = b[p] & 0xFF;
      if (id == 0x3B) {
        return frames == 0 ? "no image in the file" : null;
      } else if (id == 0x21) {
        p += 2;
        p = skipSubBlocks(b, p);
        if (p < 0) {
          return "file truncated inside an extension";
        }
      } else if (id == 0x2C) {
        if (p + 10 > b.length) {
          return "file truncated inside an image descriptor";
        }
        int f = b[p + 9] & 0xFF;
        p += 10;
        if ((f & 0x80) != 0) {
          p += 3 * (1 << ((f & 7) + 1));
        }
        p += 1; // LZW minimum code size
        p = skipSubBlocks(b, p);
        if (p < 0) {
          return "file truncated inside image data";
        }
        frames++;
      } else {
        return String.format("unknown block 0x%02x at offset %d", id, p);
      }
    }
  }

  private static int skipSubBlocks(byte[] b, int p) {
    while (true) {
      if (p >= b.length) {
        return -1;
      }
      int n = b[p] & 0xFF;
      p += 1 + n;
      if (n == 0) {
        return p;
      }
    }
  }

  private static String webp(byte[] b) {
    long riff = u32le(b, 4);
    if (riff + 8 > b.length) {
      return "file truncated: RIFF size " + riff + " but file has " + b.length + " bytes";
    }
    return null;
  }

  private static String bmp(byte[] b) {
    if (b.length < 14) {
      return "file truncated";
    }
    long dataOffset = u32le(b, 10);
    if (dataOffset >= b.length) {
      return "pixel data offset " + dataOffset + " is past the end of the file";
    }
    return null;
  }

  private static String printable(String s) {
    StringBuilder sb = new StringBuilder();
    for (char c : s.toCharArray()) {
      sb.append(c >= 0x20 && c < 0x7F ? c : '?');
    }
    return sb.toString();
  }
}
