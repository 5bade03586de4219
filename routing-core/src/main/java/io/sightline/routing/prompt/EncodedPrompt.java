package io.sightline.routing.prompt;

import java.util.Arrays;
import java.util.Objects;

/**
 * The result of encoding one request.
 *
 * <p>In {@link Mode#EXACT} mode {@code tokenIds} are the ids the engine tokenizes to
 * <em>before</em> it expands image placeholders: each image appears once, as the model's
 * placeholder token (e.g. {@code <|image_pad|>} 151655 for Qwen-VL, {@code <image>} 32000 for
 * LLaVA-1.5). In {@link Mode#APPROXIMATE} mode they are llm-d style pseudo-tokens (4 UTF-8 bytes
 * each) with one marker per image. Either way {@code imagePositions[i]} is the index in {@code
 * tokenIds} of image {@code i}'s single placeholder, in request order, so the expansion stage never
 * has to guess.
 *
 * @param prompt the rendered prompt (exact), or the text that was packed into pseudo-tokens
 *     (approximate); never null
 * @param tokenIds token ids (placeholders not expanded); never null
 * @param numImages number of image parts in the request
 * @param imagePositions index of each image's placeholder in {@code tokenIds}; its length may be
 *     smaller than {@code numImages} only if the template dropped images (the engine would then
 *     reject the request)
 * @param mode exact or approximate
 * @param fallbackReason why an exact encoder fell back to approximate, else null
 */
public record EncodedPrompt(
    String prompt,
    int[] tokenIds,
    int numImages,
    int[] imagePositions,
    Mode mode,
    String fallbackReason) {

  /** How the ids were produced. */
  public enum Mode {
    /** Chat template + real tokenizer; ids equal the engine's. */
    EXACT,
    /** Pseudo-tokens; only comparable with other approximate encodings of the same model. */
    APPROXIMATE
  }

  public EncodedPrompt {
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(tokenIds, "tokenIds");
    Objects.requireNonNull(imagePositions, "imagePositions");
    Objects.requireNonNull(mode, "mode");
    if (numImages < 0) {
      throw new IllegalArgumentException("numImages < 0");
    }
  }

  public boolean exact() {
    return mode == Mode.EXACT;
  }

  /** A copy marked as the approximate fallback of a failed exact encoding. */
  public EncodedPrompt withFallbackReason(String reason) {
    return new EncodedPrompt(prompt, tokenIds, numImages, imagePositions, mode, reason);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EncodedPrompt e
        && prompt.equals(e.prompt)
        && Arrays.equals(tokenIds, e.tokenIds)
        && numImages == e.numImages
        && Arrays.equals(imagePositions, e.imagePositions)
        && mode == e.mode
        && Objects.equals(fallbackReason, e.fallbackReason);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        prompt,
        Arrays.hashCode(tokenIds),
        numImages,
        Arrays.hashCode(imagePositions),
        mode,
        fallbackReason);
  }

  @Override
  public String toString() {
    return "EncodedPrompt[mode="
        + mode
        + ", tokens="
        + tokenIds.length
        + ", numImages="
        + numImages
        + ", imagePositions="
        + Arrays.toString(imagePositions)
        + (fallbackReason == null ? "" : ", fallbackReason=" + fallbackReason)
        + "]";
  }
}
