package io.sightline.routing.multimodal.spec;

import java.util.OptionalInt;

/**
 * Kimi-VL-A3B (the older MoonViT processor): if {@code (W//14)*(H//14)} exceeds {@code
 * in_token_limit} both sides are scaled by {@code sqrt(limit / that)} and truncated; the image is
 * zero-padded to a multiple of {@code merge * patch}; tokens = patch grid / merge². The processor
 * raises when a side reaches 512 patches ("exceed pos emb"), and so does this spec.
 *
 * <p>Port of the model repo's {@code image_processing_kimi_vl.py} ({@code rescale}) and {@code
 * processing_kimi_vl.py}; {@code ../shared/reference/vision_tokens.md} "Kimi-VL variant"
 * (confidence: medium).
 */
public record KimiVlSpec(
    int placeholderTokenId,
    String placeholderToken,
    OptionalInt bosTokenId,
    int patchSize,
    int mergeKernelSize,
    long inTokenLimit,
    boolean padInput)
    implements ModelProcessorSpec {

  static final int MAX_PATCHES_PER_SIDE = 512;

  @Override
  public VlmFamily family() {
    return VlmFamily.KIMI_VL;
  }

  @Override
  public int numImageTokens(int width, int height) throws ImageTokenCountException {
    Sizes.requirePositive(width, height);
    long w = width;
    long h = height;
    long patches = (w / patchSize) * (h / patchSize);
    if (patches > inTokenLimit) {
      double scale = Math.sqrt(inTokenLimit / (double) patches);
      w = PyMath.trunc(w * scale);
      h = PyMath.trunc(h * scale);
    }
    long unit = (long) mergeKernelSize * patchSize;
    if (padInput) {
      w += Math.floorMod(unit - w % unit, unit);
      h += Math.floorMod(unit - h % unit, unit);
    } else {
      w -= w % unit;
      h -= h % unit;
    }
    if (w / patchSize >= MAX_PATCHES_PER_SIDE || h / patchSize >= MAX_PATCHES_PER_SIDE) {
      throw new ImageTokenCountException(
          "image of " + width + "x" + height + " exceeds MoonViT's 512 patches per side");
    }
    if (w == 0 || h == 0) {
      throw new ImageTokenCountException("image of " + width + "x" + height + " crops to nothing");
    }
    long merge = (long) mergeKernelSize * mergeKernelSize;
    return Math.toIntExact((w / patchSize) * (h / patchSize) / merge);
  }
}
