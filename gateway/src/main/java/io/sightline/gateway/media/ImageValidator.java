package io.sightline.gateway.media;

import io.sightline.gateway.media.MediaException.Reason;
import io.sightline.routing.multimodal.ImageFormat;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32;
import javax.imageio.ImageIO;
import javax.imageio.ImageReadParam;
import javax.imageio.ImageReader;
import javax.imageio.stream.ImageInputStream;

/**
 * Full-file check of image bytes the gateway already holds ({@code data:} URIs, full downloads),
 * run after the header's pixel cap so a bomb is never decoded. Catches the corrupt files of the
 * libpng/Pillow crasher corpora (../shared/data/images/MANIFEST.md) before they reach an engine:
 *
 * <ul>
 *   <li>PNG: every chunk's length must fit the file and its CRC-32 must match, and the file must
 *       end with IEND (bad CRC, 0x3FFFFFFF chunk lengths, truncated files), then the pixel data is
 *       inflated (bad zlib Adler-32, corrupt data streams);
 *   <li>JPEG, GIF, BMP: decoded with {@link ImageIO}; any decoder warning ("premature end of data")
 *       counts as an error. JPEG is read as a raster so CMYK/YCCK files are not rejected for their
 *       colour space;
 *   <li>WebP: no JDK decoder; the header check is all it gets.
 * </ul>
 *
 * Decoding uses source subsampling so the raster kept in memory stays around a megapixel whatever
 * the image size. Callers run this on a bounded pool.
 */
public final class ImageValidator {
  private ImageValidator() {}

  /**
   * @throws MediaException 400 when the file is corrupt
   */
  public static void validate(byte[] bytes, ImageFormat format, int width, int height) {
    if (format == ImageFormat.PNG) {
      checkPngChunks(bytes);
    }
    if (format == ImageFormat.WEBP) {
      return;
    }
    decode(bytes, format, width, height);
  }

  static void checkPngChunks(byte[] b) {
    int p = 8;
    boolean sawEnd = false;
    while (p < b.length) {
      if (b.length - p < 12) {
        throw malformed("PNG chunk header truncated at offset " + p);
      }
      long len =
          ((long) (b[p] & 0xFF) << 24)
              | ((b[p + 1] & 0xFF) << 16)
              | ((b[p + 2] & 0xFF) << 8)
              | (b[p + 3] & 0xFF);
      if (len > b.length - p - 12L) {
        throw malformed("PNG chunk at offset " + p + " claims " + len + " bytes beyond the file");
      }
      int n = (int) len;
      CRC32 crc = new CRC32();
      crc.update(b, p + 4, 4 + n);
      int q = p + 8 + n;
      long stored =
          ((long) (b[q] & 0xFF) << 24)
              | ((b[q + 1] & 0xFF) << 16)
              | ((b[q + 2] & 0xFF) << 8)
              | (b[q + 3] & 0xFF);
      if (crc.getValue() != stored) {
        throw malformed("PNG chunk CRC mismatch at offset " + p);
      }
      boolean iend = b[p + 4] == 'I' && b[p + 5] == 'E' && b[p + 6] == 'N' && b[p + 7] == 'D';
      p = q + 4;
      if (iend) {
        sawEnd = true;
        break;
      }
    }
    if (!sawEnd) {
      throw malformed("PNG has no IEND chunk (truncated)");
    }
  }

  private static void decode(byte[] bytes, ImageFormat format, int width, int height) {
    try (ImageInputStream in = ImageIO.createImageInputStream(new ByteArrayInputStream(bytes))) {
      Iterator<ImageReader> readers = ImageIO.getImageReaders(in);
      if (!readers.hasNext()) {
        throw malformed("no decoder recognises the " + format.id() + " data");
      }
      ImageReader reader = readers.next();
      AtomicReference<String> warning = new AtomicReference<>();
      reader.addIIOReadWarningListener((source, message) -> warning.compareAndSet(null, message));
      try {
        reader.setInput(in, true, true);
        ImageReadParam param = reader.getDefaultReadParam();
        long pixels = (long) width * height;
        int step = (int) Math.max(1, Math.ceil(Math.sqrt(pixels / 1_000_000.0)));
        if (step > 1) {
          param.setSourceSubsampling(step, step, 0, 0);
        }
        if (format == ImageFormat.JPEG && reader.canReadRaster()) {
          reader.readRaster(0, param);
        } else {
          reader.read(0, param);
        }
      } finally {
        reader.dispose();
      }
      if (warning.get() != null) {
        throw malformed(warning.get());
      }
    } catch (MediaException e) {
      throw e;
    } catch (IOException | RuntimeException | OutOfMemoryError e) {
      throw malformed(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
  }

  private static MediaException malformed(String why) {
    return new MediaException(Reason.MALFORMED, "Image data is corrupt: " + why + ".");
  }
}
