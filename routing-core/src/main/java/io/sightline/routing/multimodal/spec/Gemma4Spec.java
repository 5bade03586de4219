package io.sightline.routing.multimodal.spec;

import java.util.OptionalInt;

/**
 * Gemma 4: an aspect-preserving resize to a soft-token budget ({@code max_soft_tokens}: 70, 140,
 * 280, 560 or 1120). With {@code max_patches = budget * k^2} and {@code side = k * patch} (48):
 * {@code f = sqrt(max_patches * patch^2 / (H*W))} (small images are upscaled), each side becomes
 * {@code floor(f*side/48)*48}; if one side comes out 0 it is set to 48 and the other to {@code
 * min(floor(long/short)*48, budget*48)}. Count = {@code (th/48) * (tw/48)}.
 *
 * <p>Port of transformers {@code gemma4/image_processing_pil_gemma4.py::
 * get_aspect_ratio_preserving_size}; {@code ../shared/reference/vision_tokens.md} "Gemma 4".
 */
public record Gemma4Spec(
    int placeholderTokenId,
    String placeholderToken,
    OptionalInt bosTokenId,
    int patchSize,
    int poolingKernelSize,
    int maxSoftTokens,
    int boiTokenId,
    int eoiTokenId)
    implements ModelProcessorSpec {

  /** {@code boi} + count x {@code image_token} + {@code eoi} (transformers processing_gemma4). */
  @Override
  public int[] replacement(int width, int height) throws ImageTokenCountException {
    int n = numImageTokens(width, height);
    int[] out = new int[n + 2];
    out[0] = boiTokenId;
    java.util.Arrays.fill(out, 1, 1 + n, placeholderTokenId);
    out[n + 1] = eoiTokenId;
    return out;
  }

  @Override
  public VlmFamily family() {
    return VlmFamily.GEMMA4;
  }

  @Override
  public int numImageTokens(int width, int height) throws ImageTokenCountException {
    Sizes.requirePositive(width, height);
    long maxPatches = (long) maxSoftTokens * poolingKernelSize * poolingKernelSize;
    long totalPx = (long) height * width;
    long targetPx = maxPatches * patchSize * patchSize;
    double factor = Math.sqrt((double) targetPx / totalPx);
    double idealH = factor * height;
    double idealW = factor * width;
    long side = (long) poolingKernelSize * patchSize;
    long th = (long) Math.floor(idealH / side) * side;
    long tw = (long) Math.floor(idealW / side) * side;
    if (th == 0 && tw == 0) {
      throw new ImageTokenCountException(
          "image of " + width + "x" + height + " resizes to 0x0 at this token budget");
    }
    long maxSide = (maxPatches / ((long) poolingKernelSize * poolingKernelSize)) * side;
    if (th == 0) {
      th = side;
      tw = Math.min((long) Math.floor((double) width / height) * side, maxSide);
    } else if (tw == 0) {
      tw = side;
      th = Math.min((long) Math.floor((double) height / width) * side, maxSide);
    }
    return Math.toIntExact((th / side) * (tw / side));
  }
}
