package io.sightline.routing.prompt;

import java.util.Locale;

/**
 * Estimated tokens per image for models without an exact processor spec, as llm-d's {@code
 * estimate} tokenizer does (llm-d-router {@code mm_estimate.go}; ../shared/reference/llmd.md §5):
 * either dynamic, {@code ceil(W·H / factor)}, or a fixed budget per image. Images whose size is
 * unknown (a URL not fetched) are assumed {@value #DEFAULT_WIDTH}×{@value #DEFAULT_HEIGHT}, llm-d's
 * default.
 */
@FunctionalInterface
public interface ImageTokenEstimator {

  int DEFAULT_WIDTH = 640;
  int DEFAULT_HEIGHT = 360;

  /** Estimated token count for a {@code width}×{@code height} image; at least 1. */
  int estimate(int width, int height);

  /** Estimate for an image whose size is unknown. */
  default int estimateUnknown() {
    return estimate(DEFAULT_WIDTH, DEFAULT_HEIGHT);
  }

  /** {@code ceil(W·H / factor)}: 784 = 28×28 for Qwen2/2.5-VL, 1024 = 32×32 for Qwen3-VL. */
  static ImageTokenEstimator dynamic(int pixelsPerToken) {
    if (pixelsPerToken <= 0) {
      throw new IllegalArgumentException("pixelsPerToken must be positive");
    }
    return (w, h) -> {
      if (w <= 0 || h <= 0) {
        throw new IllegalArgumentException("image size must be positive: " + w + "x" + h);
      }
      long pixels = (long) w * h;
      return (int)
          Math.max(1, Math.min(Integer.MAX_VALUE, (pixels + pixelsPerToken - 1) / pixelsPerToken));
    };
  }

  /** The same budget for every image (e.g. 576 for LLaVA-1.5, Gemma's 70…1120 budgets). */
  static ImageTokenEstimator fixed(int tokensPerImage) {
    if (tokensPerImage <= 0) {
      throw new IllegalArgumentException("tokensPerImage must be positive");
    }
    return (w, h) -> tokensPerImage;
  }

  /**
   * A sensible estimator for a model family name or {@code model_type} (case-insensitive):
   * Qwen2/2.5-VL 784 px/token, Qwen3-VL 1024, LLaVA-1.5 a fixed 576, Gemma-3 a fixed 256; anything
   * else 1024 px/token (llm-d's default factor).
   */
  static ImageTokenEstimator forFamily(String family) {
    String f = family == null ? "" : family.toLowerCase(Locale.ROOT).replace('-', '_');
    if (f.startsWith("qwen2_vl") || f.startsWith("qwen2_5_vl") || f.startsWith("qwen2.5")) {
      return dynamic(784);
    }
    if (f.startsWith("qwen3_vl")) {
      return dynamic(1024);
    }
    if (f.equals("llava") || f.startsWith("llava_1") || f.equals("llava1_5")) {
      return fixed(576);
    }
    if (f.startsWith("gemma3")) {
      return fixed(256);
    }
    return dynamic(1024);
  }
}
