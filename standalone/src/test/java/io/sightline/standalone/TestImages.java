package io.sightline.standalone;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import javax.imageio.ImageIO;

/** Distinct real PNG images, drawn in memory so every scenario has its own pictures. */
final class TestImages {
  private TestImages() {}

  /** A {@code width}x{@code height} PNG whose pixels depend on {@code seed}. */
  static byte[] png(int seed, int width, int height) {
    BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setColor(new Color((seed * 73) & 0xff, (seed * 151) & 0xff, (seed * 29 + 80) & 0xff));
    g.fillRect(0, 0, width, height);
    g.setColor(new Color((seed * 11 + 120) & 0xff, 30, (seed * 57) & 0xff));
    int step = 16 + seed % 32;
    for (int x = 0; x < width; x += step) {
      g.fillRect(x, (x * seed) % height, step / 2, height / 3);
    }
    g.dispose();
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ImageIO.write(img, "png", out);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String dataUri(byte[] png) {
    return "data:image/png;base64," + Base64.getEncoder().encodeToString(png);
  }
}
