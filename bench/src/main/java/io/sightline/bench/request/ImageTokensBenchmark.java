package io.sightline.bench.request;

import io.sightline.routing.multimodal.spec.Gemma4Spec;
import io.sightline.routing.multimodal.spec.ImageTokenCountException;
import io.sightline.routing.multimodal.spec.InternVlSpec;
import io.sightline.routing.multimodal.spec.KimiK25Spec;
import io.sightline.routing.multimodal.spec.Llama4Spec;
import io.sightline.routing.multimodal.spec.LlavaNextSpec;
import io.sightline.routing.multimodal.spec.ModelProcessorSpec;
import io.sightline.routing.multimodal.spec.Phi3VisionSpec;
import io.sightline.routing.multimodal.spec.PixtralSpec;
import io.sightline.routing.multimodal.spec.QwenVlSpec;
import io.sightline.routing.multimodal.spec.VlmFamily;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Cost of one {@code numImageTokens(w, h)} call per family (hub default parameters), cycling over
 * 16 sizes from 64x64 to 4032x3024 so the JIT cannot fold a constant.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ImageTokensBenchmark {

  @Param({
    "qwen2_5_vl",
    "qwen3_vl",
    "llava_next",
    "phi3_v",
    "llama4",
    "kimi_k25",
    "pixtral",
    "gemma4",
    "internvl"
  })
  public String family;

  private static final int[][] SIZES = {
    {64, 64}, {640, 480}, {1920, 1080}, {1080, 1920}, {4032, 3024}, {336, 336}, {1280, 720},
    {500, 316}, {37, 23}, {1000, 100}, {100, 1000}, {800, 600}, {3000, 2000}, {2048, 2048},
    {259, 194}, {4000, 3000}
  };

  private ModelProcessorSpec spec;
  private int i;

  @Setup
  public void setUp() {
    OptionalInt none = OptionalInt.empty();
    spec =
        switch (family) {
          case "qwen2_5_vl" ->
              new QwenVlSpec(
                  VlmFamily.QWEN2_5_VL, 151655, "<|image_pad|>", none, 14, 2, 3136, 12845056);
          case "qwen3_vl" ->
              new QwenVlSpec(
                  VlmFamily.QWEN3_VL, 151655, "<|image_pad|>", none, 16, 2, 65536, 16777216);
          case "llava_next" ->
              new LlavaNextSpec(
                  32000,
                  "<image>",
                  none,
                  336,
                  336,
                  14,
                  List.of(
                      new int[] {336, 672},
                      new int[] {672, 336},
                      new int[] {672, 672},
                      new int[] {1008, 336},
                      new int[] {336, 1008}),
                  1,
                  true);
          case "phi3_v" -> new Phi3VisionSpec(32044, "<|image|>", none, 16, 144);
          case "llama4" ->
              new Llama4Spec(
                  200092,
                  "<|patch|>",
                  none,
                  336,
                  16,
                  false,
                  14,
                  0.5,
                  200090,
                  200080,
                  200081,
                  200084,
                  200085);
          case "kimi_k25" ->
              new KimiK25Spec(163605, "<|media_pad|>", none, 14, 2, 16384, 512, none);
          case "pixtral" ->
              new PixtralSpec(VlmFamily.PIXTRAL, 10, "[IMG]", none, 16, 1, 1024, 12, 13);
          case "gemma4" -> new Gemma4Spec(258880, "<|image|>", none, 16, 3, 280, 255999, 258882);
          case "internvl" ->
              new InternVlSpec(
                  151667, "<IMG_CONTEXT>", none, 448, 1, 12, true, false, 256, 151665, 151666);
          default -> throw new IllegalArgumentException(family);
        };
  }

  @Benchmark
  public int numImageTokens() throws ImageTokenCountException {
    int[] s = SIZES[i++ & 15];
    return spec.numImageTokens(s[0], s[1]);
  }
}
