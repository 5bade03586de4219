package io.sightline.routing.multimodal.spec;

import java.util.OptionalInt;

/**
 * Gemma 3: every image is resized to 896x896 and pooled to {@code mm_tokens_per_image} (256) soft
 * tokens, whatever its size. Pan-and-scan (off by default) adds crops with a text preamble, which a
 * count cannot express; models that enable it are not recognised (text-only routing). Source:
 * transformers {@code gemma3/processing_gemma3.py}.
 */
public record Gemma3Spec(
    int placeholderTokenId,
    String placeholderToken,
    OptionalInt bosTokenId,
    int tokensPerImage,
    int boiTokenId,
    int eoiTokenId,
    int doubleNewlineId)
    implements ModelProcessorSpec {

  /** The prompt (chat template) carries {@code <start_of_image>} per image. */
  @Override
  public int promptPlaceholderTokenId() {
    return boiTokenId;
  }

  /**
   * {@code \n\n<start_of_image>} + 256 x {@code <image_soft_token>} + {@code <end_of_image>\n\n},
   * tokenized piecewise as vLLM applies prompt updates on token ids ({@code \n\n} is one token).
   */
  @Override
  public int[] replacement(int width, int height) throws ImageTokenCountException {
    int n = numImageTokens(width, height);
    int[] out = new int[n + 4];
    out[0] = doubleNewlineId;
    out[1] = boiTokenId;
    java.util.Arrays.fill(out, 2, 2 + n, placeholderTokenId);
    out[n + 2] = eoiTokenId;
    out[n + 3] = doubleNewlineId;
    return out;
  }

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
