package io.sightline.routing.multimodal.spec;

import java.util.OptionalInt;

/**
 * Kimi-K2.5 (MoonViT, {@code navit_resize_image}): scale down (never up) so the patch count stays
 * within {@code in_patch_limit} and each side within {@code patch_limit_on_one_side} patches,
 * truncate, zero-pad each side to a multiple of {@code merge * patch}, one token per merged patch —
 * or {@code fixed_output_tokens} when the config sets it.
 *
 * <p>Port of the model's {@code media_utils.navit_resize_image} as vendored in vLLM {@code
 * kimi_k25*.py}; {@code ../shared/reference/vision_tokens.md} "Kimi-K2.5 MoonViT" (600x400 gives
 * 330). Parameters come from {@code preprocessor_config.json} {@code media_proc_cfg}.
 */
public record KimiK25Spec(
    int placeholderTokenId,
    String placeholderToken,
    OptionalInt bosTokenId,
    int patchSize,
    int mergeKernelSize,
    long inPatchLimit,
    long patchLimitOnOneSide,
    OptionalInt fixedOutputTokens)
    implements ModelProcessorSpec {

  @Override
  public VlmFamily family() {
    return VlmFamily.KIMI_K25;
  }

  @Override
  public int numImageTokens(int width, int height) throws ImageTokenCountException {
    Sizes.requirePositive(width, height);
    if (fixedOutputTokens.isPresent()) {
      return fixedOutputTokens.getAsInt();
    }
    double s1 =
        Math.sqrt(
            inPatchLimit
                / (Math.max(1.0, (double) (width / patchSize))
                    * Math.max(1.0, (double) (height / patchSize))));
    double s2 = (double) (patchLimitOnOneSide * patchSize) / width;
    double s3 = (double) (patchLimitOnOneSide * patchSize) / height;
    double scale = Math.min(Math.min(1.0, s1), Math.min(s2, s3));
    long newW = Math.max(1, PyMath.trunc(width * scale));
    long newH = Math.max(1, PyMath.trunc(height * scale));
    newW = Math.min(newW, patchLimitOnOneSide * patchSize);
    newH = Math.min(newH, patchLimitOnOneSide * patchSize);
    long factor = (long) mergeKernelSize * patchSize;
    long padW = Math.floorMod(factor - newW % factor, factor);
    long padH = Math.floorMod(factor - newH % factor, factor);
    return Math.toIntExact(((newH + padH) / factor) * ((newW + padW) / factor));
  }
}
