package io.sightline.routing.multimodal.spec;

import java.util.OptionalInt;

/**
 * Qwen2-VL, Qwen2.5-VL and Qwen3-VL: {@code smart_resize} then one token per merged patch.
 *
 * <p>Port of transformers {@code qwen2_vl/image_processing_qwen2_vl.py::smart_resize} (see {@code
 * ../shared/reference/vision_tokens.md}, "Qwen2-VL / Qwen2.5-VL / Qwen3-VL"): with {@code f = patch
 * * merge}, {@code h = round(H/f)*f}, {@code w = round(W/f)*f} using Python's round (ties to even —
 * a round-half-up port gives 121 instead of 100 for Qwen3-VL at 336x336); above {@code maxPixels}
 * both sides shrink by {@code sqrt(H*W/maxPixels)} and floor to {@code f} (at least {@code f});
 * below {@code minPixels} both grow by {@code sqrt(minPixels/(H*W))} and ceil to {@code f}. Aspect
 * ratios above 200 are rejected as the processor does. Count = {@code (h/f) * (w/f)} ({@code
 * grid_thw.prod() // merge^2} with a temporal grid of 1).
 */
public record QwenVlSpec(
    VlmFamily family,
    int placeholderTokenId,
    String placeholderToken,
    OptionalInt bosTokenId,
    int patchSize,
    int mergeSize,
    long minPixels,
    long maxPixels)
    implements ModelProcessorSpec {

  /** The processor's limit on {@code max(H,W)/min(H,W)}. */
  public static final int MAX_RATIO = 200;

  public QwenVlSpec {
    if (patchSize <= 0 || mergeSize <= 0 || minPixels < 0 || maxPixels <= 0) {
      throw new IllegalArgumentException("invalid Qwen processor parameters");
    }
  }

  @Override
  public int numImageTokens(int width, int height) throws ImageTokenCountException {
    long[] hw = smartResize(height, width);
    long f = (long) patchSize * mergeSize;
    return Math.toIntExact((hw[0] / f) * (hw[1] / f));
  }

  /** The resized {@code {height, width}}; exposed for tests and diagnostics. */
  public long[] smartResize(int height, int width) throws ImageTokenCountException {
    Sizes.requirePositive(width, height);
    int factor = patchSize * mergeSize;
    if ((double) Math.max(height, width) / Math.min(height, width) > MAX_RATIO) {
      throw new ImageTokenCountException(
          "absolute aspect ratio must be smaller than "
              + MAX_RATIO
              + ", got "
              + ((double) Math.max(height, width) / Math.min(height, width)));
    }
    long hBar = PyMath.roundHalfEven((double) height / factor) * factor;
    long wBar = PyMath.roundHalfEven((double) width / factor) * factor;
    if (hBar * wBar > maxPixels) {
      double beta = Math.sqrt((double) ((long) height * width) / maxPixels);
      hBar = Math.max(factor, (long) Math.floor(height / beta / factor) * factor);
      wBar = Math.max(factor, (long) Math.floor(width / beta / factor) * factor);
    } else if (hBar * wBar < minPixels) {
      double beta = Math.sqrt(minPixels / (double) ((long) height * width));
      hBar = (long) Math.ceil(height * beta / factor) * factor;
      wBar = (long) Math.ceil(width * beta / factor) * factor;
    }
    return new long[] {hBar, wBar};
  }
}
