package io.sightline.prompt.hf.testing;

import io.sightline.prompt.hf.HfModel;
import io.sightline.prompt.hf.HfModelException;
import io.sightline.prompt.hf.HfModels;
import io.sightline.prompt.hf.ModelBundles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The real model directories under prompt-hf's {@code src/test/resources/models} (Qwen2.5-VL,
 * Qwen3-VL, LLaVA-1.5; see PROVENANCE.md there), unpacked once per JVM into a temp directory:
 * {@code tokenizer.json} is stored gzipped to keep the repository small. Other modules get this
 * class and the files through prompt-hf's test-jar ({@code <type>test-jar</type>}, scope test).
 */
public final class TestModels {

  /** Directory names: {@code qwen2_5_vl}, {@code qwen3_vl}, {@code llava_1_5}. */
  public static final List<String> NAMES = List.of("qwen2_5_vl", "qwen3_vl", "llava_1_5");

  private static final Map<String, Path> UNPACKED = new ConcurrentHashMap<>();
  private static Path root;

  private TestModels() {}

  /** The unpacked model directory (a real directory, usable by DJL and by file-based readers). */
  public static synchronized Path dir(String name) {
    return UNPACKED.computeIfAbsent(name, TestModels::unpack);
  }

  /** The model loaded through the {@link HfModels} cache. */
  public static HfModel model(String name) {
    try {
      return HfModels.load(dir(name));
    } catch (HfModelException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path unpack(String name) {
    try {
      if (root == null) {
        root = Files.createTempDirectory("sightline-models-");
        root.toFile().deleteOnExit();
      }
      return ModelBundles.unpack(TestModels.class, "/models/" + name, root.resolve(name));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
