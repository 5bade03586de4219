package io.sightline.routing.multimodal.spec;

import java.util.Arrays;
import java.util.OptionalInt;

/**
 * What the router needs to know about one model's image processor: which token stands for an image
 * in the prompt and how many copies of it the model's own Hugging Face processor inserts for an
 * image of a given size. Implementations are immutable and thread-safe.
 */
public interface ModelProcessorSpec {

  /** The model family. */
  VlmFamily family();

  /**
   * Id of the placeholder token that marks an image in the prompt ids (and that the processor
   * repeats {@link #numImageTokens} times).
   */
  int placeholderTokenId();

  /** The placeholder token's text, e.g. {@code <|image_pad|>}. */
  String placeholderToken();

  /** BOS id to prepend to routing tokens when the tokenizer adds one and the prompt lacks it. */
  OptionalInt bosTokenId();

  /**
   * Number of placeholder tokens the model's processor produces for one image of {@code width} x
   * {@code height} pixels, exactly as its Hugging Face processor computes it.
   *
   * @throws ImageTokenCountException when the processor would reject the size
   */
  int numImageTokens(int width, int height) throws ImageTokenCountException;

  /**
   * The id that marks one image in the prompt ids before expansion. Usually the embedding
   * placeholder itself; Llama 4 ({@code <|image|>}) and Gemma 3 ({@code <start_of_image>}) differ.
   */
  default int promptPlaceholderTokenId() {
    return placeholderTokenId();
  }

  /**
   * The token ids that replace one prompt placeholder in the engine's prompt, as the model's
   * processor inserts them: {@link #numImageTokens} copies of {@link #placeholderTokenId()} plus
   * the family's wrapper tokens (none by default).
   */
  default int[] replacement(int width, int height) throws ImageTokenCountException {
    int[] r = new int[numImageTokens(width, height)];
    Arrays.fill(r, placeholderTokenId());
    return r;
  }
}
