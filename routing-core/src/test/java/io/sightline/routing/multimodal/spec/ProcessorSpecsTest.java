package io.sightline.routing.multimodal.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Processor specs read from real Hugging Face files (and hand-written fixtures for the families
 * without real files, see {@code models/synthetic/README.md}), checked against the golden counts of
 * {@code models/golden/golden.csv} (4k rows: 19 family variants x 209 sizes including tiny, huge,
 * 200:1 and the rounding ties) and the transformers 4.57.1 Qwen fingerprints.
 */
class ProcessorSpecsTest {

  static Path model(String name) {
    try {
      return Path.of(ProcessorSpecsTest.class.getResource("/models/" + name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static ModelProcessorSpec spec(String name) {
    SpecResolution r = ProcessorSpecs.resolve(model(name));
    assertThat(r.recognised()).as("%s: %s", name, r.reason()).isTrue();
    return r.spec().orElseThrow();
  }

  @ParameterizedTest(name = "{0} -> {1}, placeholder {2}")
  @CsvSource({
    "Qwen2-VL-7B-Instruct, QWEN2_VL, 151655, -1",
    "Qwen2.5-VL-7B-Instruct, QWEN2_5_VL, 151655, -1",
    "Qwen3-VL-4B-Instruct, QWEN3_VL, 151655, -1",
    "Qwen3-VL-8B-Instruct, QWEN3_VL, 151655, -1",
    "llava-1.5-7b-hf, LLAVA, 32000, 1",
    "microsoft__Phi-3-vision-128k-instruct, PHI3_V, 32044, 1",
    "google__gemma-3-4b-it, GEMMA3, 262144, 2",
    "google__gemma-4-E2B-it, GEMMA4, 258880, -1",
    "synthetic/llava-v1.6-mistral-7b-hf, LLAVA_NEXT, 32000, -1",
    "synthetic/Phi-3.5-vision-instruct, PHI3_V, 32044, 1",
    "synthetic/Llama-4-Scout-17B-16E-Instruct, LLAMA4, 200092, -1",
    "synthetic/Kimi-K2.5, KIMI_K25, 163605, -1",
    "synthetic/Kimi-VL-A3B-Instruct, KIMI_VL, 163605, -1",
    "synthetic/pixtral-12b, PIXTRAL, 10, -1",
    "synthetic/Mistral-Small-3.1-24B-Instruct-2503, MISTRAL3, 10, -1",
    "synthetic/InternVL3-8B-hf, INTERNVL, 151667, -1",
    "synthetic/InternVL3-8B, INTERNVL, 151667, -1",
  })
  void recognisesFamilyPlaceholderAndBos(String dir, VlmFamily family, int placeholder, int bos) {
    ModelProcessorSpec s = spec(dir);
    assertThat(s.family()).isEqualTo(family);
    assertThat(s.placeholderTokenId()).isEqualTo(placeholder);
    assertThat(s.bosTokenId()).isEqualTo(bos < 0 ? OptionalInt.empty() : OptionalInt.of(bos));
  }

  @Test
  void readsFamilyParametersFromTheFiles() {
    assertThat(spec("Qwen2-VL-7B-Instruct"))
        .isEqualTo(
            new QwenVlSpec(
                VlmFamily.QWEN2_VL,
                151655,
                "<|image_pad|>",
                OptionalInt.empty(),
                14,
                2,
                3136,
                12845056));
    QwenVlSpec q3 = (QwenVlSpec) spec("Qwen3-VL-8B-Instruct");
    assertThat(List.of(q3.patchSize(), q3.mergeSize())).containsExactly(16, 2);
    assertThat(List.of(q3.minPixels(), q3.maxPixels())).containsExactly(65536L, 16777216L);
    assertThat(((Phi3VisionSpec) spec("microsoft__Phi-3-vision-128k-instruct")).numCrops())
        .isEqualTo(16);
    assertThat(((Phi3VisionSpec) spec("synthetic/Phi-3.5-vision-instruct")).numCrops())
        .isEqualTo(4);
    assertThat(((Gemma4Spec) spec("google__gemma-4-E2B-it")).maxSoftTokens()).isEqualTo(280);
    assertThat(((PixtralSpec) spec("synthetic/Mistral-Small-3.1-24B-Instruct-2503")))
        .extracting(PixtralSpec::patchSize, PixtralSpec::spatialMergeSize, PixtralSpec::longestEdge)
        .containsExactly(14, 2, 1540);
    assertThat(((InternVlSpec) spec("synthetic/InternVL3-8B")).ratioCapPlusOne()).isTrue();
    assertThat(((InternVlSpec) spec("synthetic/InternVL3-8B-hf")).ratioCapPlusOne()).isFalse();
  }

  private static Map<String, ModelProcessorSpec> variants;

  /** Which spec answers for each golden variant (built once; specs are immutable). */
  static synchronized Map<String, ModelProcessorSpec> variants() {
    if (variants == null) {
      variants = buildVariants();
    }
    return variants;
  }

  private static Map<String, ModelProcessorSpec> buildVariants() {
    Map<String, ModelProcessorSpec> m = new LinkedHashMap<>();
    m.put("qwen2_vl", spec("Qwen2-VL-7B-Instruct"));
    m.put(
        "qwen2_vl_class_default",
        new QwenVlSpec(
            VlmFamily.QWEN2_VL,
            151655,
            "<|image_pad|>",
            OptionalInt.empty(),
            14,
            2,
            3136,
            1003520));
    m.put(
        "qwen2_vl_fingerprint",
        new QwenVlSpec(
            VlmFamily.QWEN2_VL,
            151655,
            "<|image_pad|>",
            OptionalInt.empty(),
            14,
            2,
            256 * 28 * 28,
            1280 * 28 * 28));
    m.put("qwen3_vl", spec("Qwen3-VL-8B-Instruct"));
    m.put("llava", spec("llava-1.5-7b-hf"));
    m.put("llava_next", spec("synthetic/llava-v1.6-mistral-7b-hf"));
    m.put("phi3_v", spec("microsoft__Phi-3-vision-128k-instruct"));
    m.put("phi3_5_v", spec("synthetic/Phi-3.5-vision-instruct"));
    m.put("llama4", spec("synthetic/Llama-4-Scout-17B-16E-Instruct"));
    m.put("kimi_k25", spec("synthetic/Kimi-K2.5"));
    m.put("kimi_vl", spec("synthetic/Kimi-VL-A3B-Instruct"));
    m.put("pixtral", spec("synthetic/pixtral-12b"));
    m.put("mistral3", spec("synthetic/Mistral-Small-3.1-24B-Instruct-2503"));
    m.put("gemma3", spec("google__gemma-3-4b-it"));
    m.put("gemma4", spec("google__gemma-4-E2B-it"));
    m.put(
        "gemma4_70",
        new Gemma4Spec(258880, "<|image|>", OptionalInt.empty(), 16, 3, 70, 255999, 258882));
    m.put(
        "gemma4_1120",
        new Gemma4Spec(258880, "<|image|>", OptionalInt.empty(), 16, 3, 1120, 255999, 258882));
    m.put("internvl", spec("synthetic/InternVL3-8B-hf"));
    m.put("internvl_chat", spec("synthetic/InternVL3-8B"));
    return m;
  }

  static Stream<Arguments> goldenByVariant() throws Exception {
    Map<String, List<int[]>> rows = new LinkedHashMap<>();
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(
                ProcessorSpecsTest.class.getResourceAsStream("/models/golden/golden.csv"),
                StandardCharsets.UTF_8))) {
      r.readLine();
      String line;
      while ((line = r.readLine()) != null) {
        String[] p = line.split(",");
        int tokens = p[3].equals("error") ? -1 : Integer.parseInt(p[3]);
        rows.computeIfAbsent(p[0], k -> new ArrayList<>())
            .add(new int[] {Integer.parseInt(p[1]), Integer.parseInt(p[2]), tokens});
      }
    }
    return rows.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
  }

  @ParameterizedTest(name = "golden {0}")
  @MethodSource("goldenByVariant")
  void matchesGoldenCounts(String variant, List<int[]> rows) {
    ModelProcessorSpec s = variants().get(variant);
    assertThat(s).as(variant).isNotNull();
    assertThat(rows).hasSizeGreaterThan(200);
    List<String> mismatches = new ArrayList<>();
    for (int[] row : rows) {
      String got;
      try {
        got = Integer.toString(s.numImageTokens(row[0], row[1]));
      } catch (ImageTokenCountException e) {
        got = "error";
      }
      String want = row[2] < 0 ? "error" : Integer.toString(row[2]);
      if (!got.equals(want)) {
        mismatches.add(row[0] + "x" + row[1] + ": want " + want + " got " + got);
      }
    }
    assertThat(mismatches).isEmpty();
  }

  @ParameterizedTest(name = "{0} {1}x{2} -> {3}")
  @CsvSource({
    // The rounding ties (Python round-half-even) and the reference table of vision_tokens.md.
    "qwen3_vl, 336, 336, 100",
    "qwen3_vl, 1280, 720, 880",
    "qwen3_vl, 640, 480, 300",
    "qwen2_vl, 640, 480, 391",
    "qwen2_vl, 4032, 3024, 15552",
    "qwen3_vl, 4032, 3024, 11844",
    "llava, 1, 1, 576",
    "llava_next, 316, 500, 1526",
    "llava_next, 30, 107, 744",
    "llava_next, 1920, 1080, 1948",
    "phi3_v, 640, 480, 1921",
    "phi3_v, 480, 640, 1933",
    "phi3_v, 28, 28, 2509",
    "llama4, 640, 480, 720",
    "llama4, 1920, 1080, 2304",
    "kimi_k25, 600, 400, 330",
    "kimi_k25, 4032, 3024, 4144",
    "pixtral, 500, 316, 640",
    "pixtral, 4032, 3024, 3072",
    "gemma3, 4000, 3000, 256",
    "gemma4, 640, 480, 266",
    "gemma4, 1920, 1080, 264",
    "internvl, 640, 480, 3328",
    "internvl, 50, 1000, 3328",
    "internvl_chat, 50, 1000, 3584",
  })
  void publishedReferenceValues(String variant, int w, int h, int tokens) throws Exception {
    assertThat(variants().get(variant).numImageTokens(w, h)).isEqualTo(tokens);
  }

  @Test
  void qwenFingerprintsFromTransformers() throws Exception {
    JsonNode golden =
        new ObjectMapper()
            .readTree(
                model("golden_qwen_preprocess_fingerprints.smg-llm-multimodal.json").toFile());
    Map<String, ModelProcessorSpec> v = variants();
    int checked = 0;
    for (JsonNode c : golden.path("cases")) {
      QwenVlSpec s =
          (QwenVlSpec)
              (c.path("model").asText().equals("qwen2_vl")
                  ? v.get("qwen2_vl_fingerprint")
                  : v.get("qwen3_vl"));
      int w = c.path("width").asInt();
      int h = c.path("height").asInt();
      JsonNode grid = c.path("grid_thw");
      long[] hw = s.smartResize(h, w);
      assertThat(hw[0] / s.patchSize()).isEqualTo(grid.get(1).asLong());
      assertThat(hw[1] / s.patchSize()).isEqualTo(grid.get(2).asLong());
      long tokens = grid.get(0).asLong() * grid.get(1).asLong() * grid.get(2).asLong() / (2 * 2);
      assertThat(s.numImageTokens(w, h)).isEqualTo(tokens);
      checked++;
    }
    assertThat(checked).isEqualTo(4);
  }

  static long count(int[] ids, int id) {
    return java.util.Arrays.stream(ids).filter(t -> t == id).count();
  }

  @Test
  void replacementsCarryTheEnginesWrapperTokens() throws Exception {
    // Every family: the replacement holds exactly numImageTokens embedding tokens.
    for (Map.Entry<String, ModelProcessorSpec> e : variants().entrySet()) {
      ModelProcessorSpec s = e.getValue();
      for (int[] size : new int[][] {{640, 480}, {1920, 1080}, {300, 300}, {37, 23}}) {
        int[] r = s.replacement(size[0], size[1]);
        assertThat(count(r, s.placeholderTokenId()))
            .as("%s %dx%d", e.getKey(), size[0], size[1])
            .isEqualTo(s.numImageTokens(size[0], size[1]));
      }
    }
    ModelProcessorSpec qwen = variants().get("qwen3_vl");
    assertThat(qwen.replacement(640, 480)).hasSize(300).containsOnly(151655);
    assertThat(qwen.promptPlaceholderTokenId()).isEqualTo(151655);

    // Llama 4, 640x480 -> 2x2 tiles: start, 2 rows of (144 | x-sep | 144 | y-sep), image, 144, end.
    ModelProcessorSpec llama = variants().get("llama4");
    int[] l = llama.replacement(640, 480);
    assertThat(llama.promptPlaceholderTokenId()).isEqualTo(200090);
    assertThat(l).hasSize(1 + 2 * (144 + 1 + 144 + 1) + 1 + 144 + 1);
    assertThat(l[0]).isEqualTo(200080);
    assertThat(l[145]).isEqualTo(200084);
    assertThat(l[290]).isEqualTo(200085);
    assertThat(l[l.length - 146]).isEqualTo(200090);
    assertThat(l[l.length - 1]).isEqualTo(200081);
    assertThat(count(l, 200084)).isEqualTo(2);
    assertThat(count(l, 200085)).isEqualTo(2);
    // One tile: no separators, no global tile.
    int[] one = llama.replacement(300, 300);
    assertThat(one).hasSize(147);
    assertThat(List.of(one[0], one[1], one[146])).containsExactly(200080, 200090, 200081);

    // Pixtral 500x316 -> 20 rows x 32 cols: [IMG]x32 [IMG_BREAK] ... last [IMG_END].
    int[] p = variants().get("pixtral").replacement(500, 316);
    assertThat(p).hasSize(20 * 33);
    assertThat(p[32]).isEqualTo(12);
    assertThat(p[p.length - 1]).isEqualTo(13);
    assertThat(count(p, 12)).isEqualTo(19);

    // Gemma 3: \n\n <start_of_image> 256 soft tokens <end_of_image> \n\n; prompt has boi.
    ModelProcessorSpec g3 = variants().get("gemma3");
    int[] g = g3.replacement(10, 10);
    assertThat(g3.promptPlaceholderTokenId()).isEqualTo(255999);
    assertThat(List.of(g[0], g[1], g[2], g[257], g[258], g[259]))
        .containsExactly(108, 255999, 262144, 262144, 256000, 108);
    int[] iv = variants().get("internvl").replacement(640, 480);
    assertThat(List.of(iv[0], iv[1], iv[iv.length - 1])).containsExactly(151665, 151667, 151666);
    assertThat(iv).hasSize(3328 + 2);
    int[] g4 = variants().get("gemma4").replacement(640, 480);
    assertThat(List.of(g4[0], g4[1], g4[g4.length - 1])).containsExactly(255999, 258880, 258882);
  }

  @Test
  void missingWrapperTokensMeanTextOnly(@TempDir Path tmp) throws Exception {
    Files.copy(model("synthetic/pixtral-12b/config.json"), tmp.resolve("config.json"));
    Files.copy(
        model("synthetic/pixtral-12b/preprocessor_config.json"),
        tmp.resolve("preprocessor_config.json"));
    SpecResolution r = ProcessorSpecs.resolve(tmp);
    assertThat(r.recognised()).isFalse();
    assertThat(r.reason()).contains("[IMG_BREAK]");
  }

  @Test
  void invalidSizesAreCheckedExceptions() {
    for (ModelProcessorSpec s : variants().values()) {
      assertThatThrownBy(() -> s.numImageTokens(0, 10))
          .isInstanceOf(ImageTokenCountException.class);
      assertThatThrownBy(() -> s.numImageTokens(10, -1))
          .isInstanceOf(ImageTokenCountException.class);
    }
    assertThatThrownBy(() -> variants().get("qwen3_vl").numImageTokens(1, 201))
        .isInstanceOf(ImageTokenCountException.class)
        .hasMessageContaining("aspect ratio");
  }

  @Test
  void unrecognisedModelsRouteOnTextAndSaySo(@TempDir Path tmp) throws Exception {
    SpecResolution text = ProcessorSpecs.resolve(model("synthetic/unknown-text-model"));
    assertThat(text.recognised()).isFalse();
    assertThat(text.reason()).contains("model_type 'llama'").contains("text only");
    assertThat(ProcessorSpecs.fromModelDirectory(model("synthetic/unknown-text-model"))).isEmpty();

    assertThat(ProcessorSpecs.resolve(tmp.resolve("nope")).reason()).contains("not a directory");
    assertThat(ProcessorSpecs.resolve(tmp).reason()).contains("no config.json");

    Path broken = Files.createDirectory(tmp.resolve("broken"));
    Files.writeString(broken.resolve("config.json"), "{\"model_type\": \"qwen2_vl\",");
    assertThat(ProcessorSpecs.resolve(broken).reason()).contains("cannot read config.json");

    // Phi-3 has no id field in config.json: without tokenizer files the placeholder is unknown.
    Path phi = Files.createDirectory(tmp.resolve("phi"));
    Files.copy(
        model("microsoft__Phi-3-vision-128k-instruct/config.json"), phi.resolve("config.json"));
    SpecResolution r = ProcessorSpecs.resolve(phi);
    assertThat(r.recognised()).isFalse();
    assertThat(r.reason()).contains("<|image|>").contains("vocabulary");

    // Gemma 3 with pan-and-scan adds crops and text: not countable, so text only.
    Path pas = Files.createDirectory(tmp.resolve("pas"));
    Files.copy(model("google__gemma-3-4b-it/config.json"), pas.resolve("config.json"));
    Files.writeString(pas.resolve("preprocessor_config.json"), "{\"do_pan_and_scan\": true}");
    assertThat(ProcessorSpecs.resolve(pas).reason()).contains("pan-and-scan");

    Path badValue = Files.createDirectory(tmp.resolve("bad"));
    Files.copy(model("Qwen2-VL-7B-Instruct/config.json"), badValue.resolve("config.json"));
    Files.writeString(badValue.resolve("preprocessor_config.json"), "{\"patch_size\": \"14\"}");
    assertThat(ProcessorSpecs.resolve(badValue).reason()).contains("positive integer");
  }

  @Test
  void filesSilentOnParametersFallBackToClassDefaults(@TempDir Path tmp) throws Exception {
    Files.copy(model("Qwen2-VL-7B-Instruct/config.json"), tmp.resolve("config.json"));
    QwenVlSpec s = (QwenVlSpec) ProcessorSpecs.fromModelDirectory(tmp).orElseThrow();
    assertThat(s.maxPixels()).isEqualTo(1003520); // Qwen2VLImageProcessor's class default
    // Same answer as the golden row qwen2_vl_class_default,4032,3024 (at most 1280 merged patches).
    assertThat(s.numImageTokens(4032, 3024)).isEqualTo(1230);
  }
}
