package io.sightline.bench.prompt;

import io.sightline.prompt.hf.ModelBundles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds a model directory for the prompt benchmarks. Defaults to the real files committed as
 * prompt-hf test resources ({@code prompt-hf/src/test/resources/models/NAME}, run from the
 * repository root) or any directory given with {@code -p modelsRoot=...}; a gzipped {@code
 * tokenizer.json.gz} is unpacked into a temp copy first.
 */
final class BenchModels {

  static final String DEFAULT_ROOT = "prompt-hf/src/test/resources/models";

  private BenchModels() {}

  static Path dir(String root, String name) {
    Path src = Path.of(root, name);
    if (!Files.isDirectory(src)) {
      throw new IllegalStateException(
          "no model directory "
              + src.toAbsolutePath()
              + " (run from the repository root or pass"
              + " -p modelsRoot=DIR)");
    }
    if (Files.isRegularFile(src.resolve("tokenizer.json"))
        || !Files.isRegularFile(src.resolve("tokenizer.json.gz"))) {
      return src;
    }
    try {
      return ModelBundles.unpackDirectory(
          src, Files.createTempDirectory("sightline-bench-" + name + "-"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
