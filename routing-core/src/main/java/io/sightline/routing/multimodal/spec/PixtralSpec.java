package io.sightline.routing.multimodal.spec;

import java.util.OptionalInt;

/**
 * Pixtral and Mistral-Small-3.1 ({@code mistral3}): the image is scaled down (never up) so its
 * longest side fits {@code longest_edge}, each side is rounded up to a multiple of {@code patch *
 * spatial_merge}, and there is one {@code [IMG]} per cell; {@code [IMG_BREAK]} after each row but
 * the last and {@code [IMG_END]} are wrappers, not counted.
 *
 * <p>Port of transformers {@code pixtral/image_processing_pixtral.py::get_resize_output_image_size}
 * (current HF: floor when downscaling) and {@code pixtral/processing_pixtral.py}; for Mistral3 the
 * processor passes {@code patch * spatial_merge} (28) as the patch. See {@code
 * ../shared/reference/vision_tokens.md} "Pixtral" — older HF used ceil and mistral-common uses
 * round; all agree on common sizes.
 */
public record PixtralSpec(
    VlmFamily family,
    int placeholderTokenId,
    String placeholderToken,
    OptionalInt bosTokenId,
    int patchSize,
    int spatialMergeSize,
    int longestEdge,
    int imageBreakId,
    int imageEndId)
    implements ModelProcessorSpec {

  /**
   * Rows of {@code [IMG]} x cols each followed by {@code [IMG_BREAK]}, the last one replaced by
   * {@code [IMG_END]} (transformers {@code processing_pixtral.py}).
   */
  @Override
  public int[] replacement(int width, int height) throws ImageTokenCountException {
    long[] rc = grid(width, height);
    int rows = (int) rc[0];
    int cols = (int) rc[1];
    int[] out = new int[rows * (cols + 1)];
    int p = 0;
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c < cols; c++) {
        out[p++] = placeholderTokenId;
      }
      out[p++] = imageBreakId;
    }
    out[out.length - 1] = imageEndId;
    return out;
  }

  @Override
  public int numImageTokens(int width, int height) throws ImageTokenCountException {
    long[] rc = grid(width, height);
    return Math.toIntExact(rc[0] * rc[1]);
  }

  /** {@code {rows, cols}} of image tokens. */
  long[] grid(int width, int height) throws ImageTokenCountException {
    Sizes.requirePositive(width, height);
    long p = (long) patchSize * spatialMergeSize;
    long h = height;
    long w = width;
    double ratio = Math.max((double) height / longestEdge, (double) width / longestEdge);
    if (ratio > 1) {
      h = (long) Math.floor(height / ratio);
      w = (long) Math.floor(width / ratio);
    }
    // _num_image_tokens: (h - 1) // p + 1 ; a side that floored to 0 gives 0 rows/cols.
    long rows = Math.floorDiv(h - 1, p) + 1;
    long cols = Math.floorDiv(w - 1, p) + 1;
    if (rows <= 0 || cols <= 0) {
      throw new ImageTokenCountException(
          "image of " + width + "x" + height + " resizes to an empty image");
    }
    return new long[] {rows, cols};
  }
}
