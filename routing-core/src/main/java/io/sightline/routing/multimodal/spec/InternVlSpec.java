package io.sightline.routing.multimodal.spec;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * InternVL (2.5/3): the image is cut into a {@code cols x rows} grid of 448 tiles whose aspect
 * ratio is closest to the image's ({@code minTiles <= cols*rows <= maxTiles}), plus a thumbnail
 * when there is more than one tile; {@code image_seq_length} (256) tokens per tile.
 *
 * <p>Port of transformers {@code got_ocr2/image_processing_got_ocr2.py} ({@code
 * get_all_supported_aspect_ratios}, {@code get_optimal_tiled_canvas}) and {@code
 * internvl/processing_internvl.py}. On an exact tie of ratio difference the later (larger) grid
 * wins only if the image area exceeds half of the grid's pixel area. vLLM's path for the original
 * {@code internvl_chat} checkpoints raises the ratio cap to {@code max + 1} when the thumbnail is
 * on ({@code ratioCapPlusOne}); 50x1000 gives 3328 in HF and 3584 there ({@code
 * ../shared/reference/vision_tokens.md} "InternVL3"). The prompt placeholder is {@code
 * <IMG_CONTEXT>} (the HF processor's {@code image_token}); for {@code internvl_chat} checkpoints
 * the prompt's {@code <image>} text must be mapped to it by the prompt encoder.
 */
public record InternVlSpec(
    int placeholderTokenId,
    String placeholderToken,
    OptionalInt bosTokenId,
    int tileSize,
    int minTiles,
    int maxTiles,
    boolean useThumbnail,
    boolean ratioCapPlusOne,
    int tokensPerTile,
    int imageStartId,
    int imageEndId)
    implements ModelProcessorSpec {

  /**
   * {@code <img>} + {@code <IMG_CONTEXT>} x count + {@code </img>} (transformers {@code
   * processing_internvl.py}; vLLM's internvl.py builds the same sequence).
   */
  @Override
  public int[] replacement(int width, int height) throws ImageTokenCountException {
    int n = numImageTokens(width, height);
    int[] out = new int[n + 2];
    out[0] = imageStartId;
    java.util.Arrays.fill(out, 1, 1 + n, placeholderTokenId);
    out[n + 1] = imageEndId;
    return out;
  }

  @Override
  public VlmFamily family() {
    return VlmFamily.INTERNVL;
  }

  @Override
  public int numImageTokens(int width, int height) throws ImageTokenCountException {
    Sizes.requirePositive(width, height);
    int max = ratioCapPlusOne && useThumbnail ? maxTiles + 1 : maxTiles;
    int[] grid = optimalGrid(width, height, minTiles, max);
    long tiles = (long) grid[0] * grid[1];
    if (useThumbnail && tiles > 1) {
      tiles += 1;
    }
    return Math.toIntExact(tiles * tokensPerTile);
  }

  /** {@code {cols, rows}} of the chosen canvas. */
  int[] optimalGrid(int width, int height, int min, int max) {
    List<int[]> grids = GRIDS.computeIfAbsent(((long) min << 32) | max, k -> grids(min, max));
    double aspect = (double) width / height;
    double area = (double) width * height;
    double bestDiff = Double.POSITIVE_INFINITY;
    int[] best = {1, 1};
    for (int[] g : grids) {
      double diff = Math.abs(aspect - (double) g[0] / g[1]);
      if (diff < bestDiff) {
        bestDiff = diff;
        best = g;
      } else if (diff == bestDiff) {
        if (area > 0.5 * tileSize * tileSize * g[0] * g[1]) {
          best = g;
        }
      }
    }
    return best;
  }

  private static final java.util.concurrent.ConcurrentHashMap<Long, List<int[]>> GRIDS =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Candidate {@code {cols, rows}} grids in the reference's order. */
  private static List<int[]> grids(int min, int max) {
    List<int[]> grids = new ArrayList<>();
    for (int c = 1; c <= max; c++) {
      for (int r = 1; r <= max; r++) {
        int n = c * r;
        if (n <= max && n >= min) {
          grids.add(new int[] {c, r});
        }
      }
    }
    // Python's sorted() is stable: by tile count, then generation order (cols ascending).
    grids.sort((a, b) -> Integer.compare(a[0] * a[1], b[0] * b[1]));
    return List.copyOf(grids);
  }
}
