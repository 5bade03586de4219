package io.sightline.routing.expansion;

import io.sightline.routing.multimodal.spec.ImageTokenCountException;
import io.sightline.routing.multimodal.spec.ModelProcessorSpec;

/**
 * One image of a request, in prompt order.
 *
 * <p>Simple form {@code new ImageSlot(mmHash, numTokens)}: the prompt placeholder becomes {@code
 * numTokens} fill tokens. Full form (from {@link #forImage}): the placeholder becomes the spec's
 * {@code replacement} sequence — the embedding tokens ({@code embedTokenId}) plus the wrappers the
 * engine inserts around them (Llama 4 tile separators, Pixtral row breaks, Gemma begin/end of
 * image); under Gen-2 only the embedding positions take the pad value.
 *
 * @param numTokens number of embedding (image) tokens
 * @param replacement the full replacement sequence, or null for {@code numTokens} fill tokens
 * @param embedTokenId the id of the embedding positions in {@code replacement} (ignored when null)
 */
public record ImageSlot(long mmHash, int numTokens, int[] replacement, int embedTokenId) {

  public ImageSlot(long mmHash, int numTokens) {
    this(mmHash, numTokens, null, -1);
  }

  /** The slot of an image of {@code width} x {@code height} for the model {@code spec}. */
  public static ImageSlot forImage(ModelProcessorSpec spec, long mmHash, int width, int height)
      throws ImageTokenCountException {
    int[] r = spec.replacement(width, height);
    return new ImageSlot(mmHash, spec.numImageTokens(width, height), r, spec.placeholderTokenId());
  }

  /** Number of routing tokens this image occupies. */
  public int length() {
    return replacement == null ? numTokens : replacement.length;
  }
}
