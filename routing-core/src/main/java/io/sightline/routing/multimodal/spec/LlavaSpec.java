package io.sightline.routing.multimodal.spec;

import java.util.OptionalInt;

/**
 * LLaVA-1.5: every image is resized to the shortest edge and centre-cropped to the crop size, so
 * the count is constant: {@code (cropH/patch) * (cropW/patch) + numAdditionalImageTokens}, minus
 * one when the feature-select strategy is {@code default} (the CLS feature is dropped). 576 for
 * {@code llava-hf/llava-1.5-7b-hf}. Port of transformers {@code llava/processing_llava.py}.
 */
public record LlavaSpec(
    int placeholderTokenId,
    String placeholderToken,
    OptionalInt bosTokenId,
    int cropHeight,
    int cropWidth,
    int patchSize,
    int numAdditionalImageTokens,
    boolean defaultStrategy)
    implements ModelProcessorSpec {

  @Override
  public VlmFamily family() {
    return VlmFamily.LLAVA;
  }

  @Override
  public int numImageTokens(int width, int height) throws ImageTokenCountException {
    Sizes.requirePositive(width, height);
    return (cropHeight / patchSize) * (cropWidth / patchSize)
        + numAdditionalImageTokens
        - (defaultStrategy ? 1 : 0);
  }
}
