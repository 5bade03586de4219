package io.sightline.routing.multimodal.spec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Llama 4: the image is fitted onto a canvas of {@code rows x cols} tiles ({@code rows * cols <=
 * maxPatches}), each tile gives {@code (tile/patch)^2 * pixelShuffleRatio^2} (144) {@code
 * <|patch|>} tokens, and a global tile is added when there is more than one tile.
 *
 * <p>Port of transformers {@code llama4/image_processing_llama4_fast.py} ({@code
 * find_supported_resolutions}, {@code get_best_fit}) and {@code processing_llama4.py} ({@code
 * _prompt_split_image}); {@code ../shared/reference/vision_tokens.md} "Llama 4 tiling". Canvas
 * choice: the smallest upscale if any canvas fits the image at scale ≥ 1 (the largest if {@code
 * resize_to_max_canvas}), else the largest downscale; among equal scales, the smallest area, first
 * in the reference's candidate order (kept here, it decides square images).
 */
public record Llama4Spec(
    int placeholderTokenId,
    String placeholderToken,
    OptionalInt bosTokenId,
    int tileSize,
    int maxPatches,
    boolean resizeToMaxCanvas,
    int patchSize,
    double pixelShuffleRatio,
    int imageTokenId,
    int imageStartId,
    int imageEndId,
    int tileXSeparatorId,
    int tileYSeparatorId)
    implements ModelProcessorSpec {

  @Override
  public VlmFamily family() {
    return VlmFamily.LLAMA4;
  }

  /** Tokens per tile: {@code (tile // patch)^2 // int(round(1 / ratio^2))}. */
  public int tokensPerTile() {
    long downsample = Math.round(1.0 / (pixelShuffleRatio * pixelShuffleRatio));
    long perSide = tileSize / patchSize;
    return Math.toIntExact(perSide * perSide / downsample);
  }

  @Override
  public int numImageTokens(int width, int height) throws ImageTokenCountException {
    Sizes.requirePositive(width, height);
    int[] canvas = bestFit(height, width);
    long rows = canvas[0] / tileSize;
    long cols = canvas[1] / tileSize;
    long tiles = rows * cols;
    return Math.toIntExact((long) tokensPerTile() * (tiles + (tiles > 1 ? 1 : 0)));
  }

  /** The prompt carries one {@code <|image|>} per image. */
  @Override
  public int promptPlaceholderTokenId() {
    return imageTokenId;
  }

  /**
   * {@code _prompt_split_image}: {@code <|image_start|>}, then for more than one tile each row of
   * tiles ({@code <|patch|>} x 144, {@code <|tile_x_separator|>} between tiles, {@code
   * <|tile_y_separator|>} after the row), then {@code <|image|>}, the global tile's patches and
   * {@code <|image_end|>}.
   */
  @Override
  public int[] replacement(int width, int height) throws ImageTokenCountException {
    Sizes.requirePositive(width, height);
    int[] canvas = bestFit(height, width);
    int rows = canvas[0] / tileSize;
    int cols = canvas[1] / tileSize;
    int per = tokensPerTile();
    int[] out = new int[numImageTokens(width, height) + 3 + (rows * cols > 1 ? rows * cols : 0)];
    int p = 0;
    out[p++] = imageStartId;
    if (rows * cols > 1) {
      for (int y = 0; y < rows; y++) {
        for (int x = 0; x < cols; x++) {
          for (int k = 0; k < per; k++) {
            out[p++] = placeholderTokenId;
          }
          if (x < cols - 1) {
            out[p++] = tileXSeparatorId;
          }
        }
        out[p++] = tileYSeparatorId;
      }
    }
    out[p++] = imageTokenId;
    for (int k = 0; k < per; k++) {
      out[p++] = placeholderTokenId;
    }
    out[p++] = imageEndId;
    return p == out.length ? out : java.util.Arrays.copyOf(out, p);
  }

  /** {@code find_supported_resolutions}: candidate canvases {@code {height, width}} in order. */
  List<int[]> supportedResolutions() {
    return RESOLUTIONS.computeIfAbsent(
        ((long) tileSize << 32) | maxPatches, k -> computeResolutions(tileSize, maxPatches));
  }

  // The candidate list depends only on (tile, maxPatches); cached because building it dominates.
  private static final java.util.concurrent.ConcurrentHashMap<Long, List<int[]>> RESOLUTIONS =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static List<int[]> computeResolutions(int tileSize, int maxPatches) {
    Map<Double, List<int[]>> byRatio = new LinkedHashMap<>();
    for (int chunks = maxPatches; chunks >= 1; chunks--) {
      for (int f = 1; f <= chunks; f++) {
        if (chunks % f == 0) {
          int h = f;
          int w = chunks / f;
          byRatio.computeIfAbsent((double) h / w, k -> new ArrayList<>()).add(new int[] {h, w});
        }
      }
    }
    List<int[]> out = new ArrayList<>();
    for (List<int[]> group : byRatio.values()) {
      for (int[] hw : group) {
        out.add(new int[] {hw[0] * tileSize, hw[1] * tileSize});
      }
    }
    return List.copyOf(out);
  }

  /** {@code get_best_fit}: the chosen canvas {@code {height, width}}. */
  int[] bestFit(int height, int width) {
    List<int[]> candidates = supportedResolutions();
    double[] scales = new double[candidates.size()];
    for (int i = 0; i < scales.length; i++) {
      double sw = (double) candidates.get(i)[1] / width;
      double sh = (double) candidates.get(i)[0] / height;
      scales[i] = sh > sw ? sw : sh;
    }
    double selected = Double.NaN;
    boolean anyUp = false;
    for (double s : scales) {
      if (s >= 1) {
        if (!anyUp) {
          selected = s;
          anyUp = true;
        } else {
          selected = resizeToMaxCanvas ? Math.max(selected, s) : Math.min(selected, s);
        }
      }
    }
    if (!anyUp) {
      for (double s : scales) {
        selected = Double.isNaN(selected) ? s : Math.max(selected, s);
      }
    }
    int[] best = null;
    for (int i = 0; i < scales.length; i++) {
      if (scales[i] == selected) {
        int[] c = candidates.get(i);
        if (best == null || (long) c[0] * c[1] < (long) best[0] * best[1]) {
          best = c;
        }
      }
    }
    return best;
  }
}
