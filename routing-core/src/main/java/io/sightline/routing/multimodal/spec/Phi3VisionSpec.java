package io.sightline.routing.multimodal.spec;

import java.util.OptionalInt;

/**
 * Phi-3-vision and Phi-3.5-vision: the HD transform. The image (long side horizontal) is scaled so
 * that {@code s} crops of 336 fit across with {@code s * ceil(s / ratio) <= numCrops}, its height
 * padded up to a multiple of 336, and the tokens are the sub-crops plus one global crop of {@code
 * numImgTokens} (144) each, one {@code glb_GN} separator, and one newline per 12-token row.
 *
 * <p>Port of the model repo's remote code {@code image_processing_phi3_v.py} ({@code
 * calc_hd_transform_size}, {@code calc_padded_size}, {@code
 * calc_num_image_tokens_from_image_size}); {@code ../shared/reference/vision_tokens.md}
 * "Phi-3-vision HD transform". The count depends on orientation (640x480 gives 1921, 480x640 gives
 * 1933). The placeholder is vLLM's {@code <|image|>} (32044); the HF processor's negative ids never
 * reach an engine's KV cache.
 */
public record Phi3VisionSpec(
    int placeholderTokenId,
    String placeholderToken,
    OptionalInt bosTokenId,
    int numCrops,
    int numImgTokens)
    implements ModelProcessorSpec {

  static final int TILE = 336;

  @Override
  public VlmFamily family() {
    return VlmFamily.PHI3_V;
  }

  @Override
  public int numImageTokens(int width, int height) throws ImageTokenCountException {
    Sizes.requirePositive(width, height);
    long[] wh = hdTransformSize(width, height);
    long newW = wh[0];
    long newH = wh[1];
    long perRow = Math.round(Math.sqrt(numImgTokens)); // 12 for 144
    // int((new_height // 336 * new_width // 336 + 1) * 144 + 1 + (new_height // 336 + 1) * 12)
    long crops = Math.floorDiv(Math.floorDiv(newH, TILE) * newW, TILE);
    long total = (crops + 1) * numImgTokens + 1 + (Math.floorDiv(newH, TILE) + 1) * perRow;
    return Math.toIntExact(total);
  }

  /** The padded HD size {@code {width, height}}. */
  long[] hdTransformSize(int width, int height) {
    boolean transposed = false;
    long w = width;
    long h = height;
    if (w < h) {
      long t = w;
      w = h;
      h = t;
      transposed = true;
    }
    double ratio = (double) w / h;
    long scale = 1;
    while (scale * Math.ceil(scale / ratio) <= numCrops) {
      scale++;
    }
    scale--;
    long newW = PyMath.trunc(scale * TILE);
    long newH = PyMath.trunc(newW / ratio);
    // calc_padded_size: pad the height up to a multiple of 336 (the width already is one).
    long targetH = PyMath.trunc(Math.ceil(newH / (double) TILE) * TILE);
    long paddedW = newW;
    long paddedH = targetH;
    if (transposed) {
      return new long[] {paddedH, paddedW};
    }
    return new long[] {paddedW, paddedH};
  }
}
