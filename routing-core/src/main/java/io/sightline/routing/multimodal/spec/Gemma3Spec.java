package io.sightline.routing.multimodal.spec;

import java.util.OptionalInt;

/**
 * Gemma 3: every image is resized to 896x896 and pooled to {@code mm_tokens_per_image} (256) soft
 * tokens, whatever its size. Pan-and-scan (off by default) adds crops with a text preamble, which a
 * count cannot express; models that enable it are not recognised (text-only routing). Source:
 * transformers {@code gemma3/processing_gemma3.py}.
 */
public record Gemma3Spec(
    int placeholderTokenId, String placeholderToken, OptionalInt bosTokenId, int tokensPerImage)
    implements ModelProcessorSpec {

  @Override
  public VlmFamily family() {
    return VlmFamily.GEMMA3;
  }

  @Override
  public int numImageTokens(int width, int height) throws ImageTokenCountException {
    Sizes.requirePositive(width, height);
    return tokensPerImage;
  }
}
