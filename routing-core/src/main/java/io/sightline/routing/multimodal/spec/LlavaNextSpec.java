package io.sightline.routing.multimodal.spec;

import java.util.List;
import java.util.OptionalInt;

/**
 * LLaVA-NeXT ("anyres"): a base image plus a grid of crops chosen from {@code
 * image_grid_pinpoints}, with the padding rows/columns removed again ("unpadding") and one newline
 * feature per row. The newline features sit on {@code <image>} positions, so they are counted.
 *
 * <p>Port of transformers {@code llava_next/processing_llava_next.py} ({@code
 * _get_number_of_features}, {@code _get_unpadded_features}) and {@code
 * image_processing_utils.select_best_resolution}; {@code ../shared/reference/vision_tokens.md}
 * "LLaVA-NeXT anyres". The unpadding computes {@code int(round(H * (cw / W), 7))} — Python's
 * decimal rounding to 7 places then truncation; a plain {@code Math.round} differs on about a
 * quarter of non-square sizes (30x107 gives 744, not 792).
 *
 * @param pinpoints candidate resolutions as {@code {height, width}} pairs
 */
public record LlavaNextSpec(
    int placeholderTokenId,
    String placeholderToken,
    OptionalInt bosTokenId,
    int cropHeight,
    int cropWidth,
    int patchSize,
    List<int[]> pinpoints,
    int numAdditionalImageTokens,
    boolean defaultStrategy)
    implements ModelProcessorSpec {

  public LlavaNextSpec {
    pinpoints = List.copyOf(pinpoints);
    if (pinpoints.isEmpty()) {
      throw new IllegalArgumentException("image_grid_pinpoints is empty");
    }
  }

  @Override
  public VlmFamily family() {
    return VlmFamily.LLAVA_NEXT;
  }

  @Override
  public int numImageTokens(int width, int height) throws ImageTokenCountException {
    Sizes.requirePositive(width, height);
    int[] best = selectBestResolution(height, width, pinpoints);
    if (best == null) {
      // Every candidate keeps zero pixels; transformers fails here (best_fit stays None).
      throw new ImageTokenCountException(
          "no grid pinpoint fits a " + width + "x" + height + " image");
    }
    long scaleHeight = best[0] / cropHeight;
    long scaleWidth = best[1] / cropWidth;
    long patchesHeight = cropHeight / patchSize;
    long patchesWidth = cropWidth / patchSize;
    // _get_unpadded_features(orig_height, orig_width, patches_height, patches_width, sh, sw)
    long currentHeight = patchesHeight * scaleHeight;
    long currentWidth = patchesWidth * scaleWidth;
    double originalAspect = (double) width / height;
    double currentAspect = (double) currentWidth / currentHeight;
    if (originalAspect > currentAspect) {
      long newHeight =
          PyMath.roundToDigitsThenTruncate(height * ((double) currentWidth / width), 7);
      long padding = Math.floorDiv(currentHeight - newHeight, 2);
      currentHeight -= padding * 2;
    } else {
      long newWidth =
          PyMath.roundToDigitsThenTruncate(width * ((double) currentHeight / height), 7);
      long padding = Math.floorDiv(currentWidth - newWidth, 2);
      currentWidth -= padding * 2;
    }
    long unpadded = currentHeight * currentWidth;
    long newlines = currentHeight;
    long base = patchesHeight * patchesWidth + numAdditionalImageTokens;
    long total = unpadded + newlines + base - (defaultStrategy ? 1 : 0);
    return Math.toIntExact(total);
  }

  /**
   * transformers {@code select_best_resolution}: the candidate keeping the most original pixels
   * after a fit-inside downscale, ties broken by the least wasted area, then by list order; null
   * when every candidate keeps zero pixels.
   */
  static int[] selectBestResolution(int origHeight, int origWidth, List<int[]> candidates) {
    int[] best = null;
    long maxEffective = 0;
    double minWasted = Double.POSITIVE_INFINITY;
    for (int[] c : candidates) {
      int h = c[0];
      int w = c[1];
      double scale = Math.min((double) w / origWidth, (double) h / origHeight);
      long dw = PyMath.trunc(origWidth * scale);
      long dh = PyMath.trunc(origHeight * scale);
      long effective = Math.min(dw * dh, (long) origWidth * origHeight);
      long wasted = (long) w * h - effective;
      if (effective > maxEffective || (effective == maxEffective && wasted < minWasted)) {
        maxEffective = effective;
        minWasted = wasted;
        best = c;
      }
    }
    return best;
  }
}
