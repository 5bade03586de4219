package io.sightline.prompt.hf;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * The model directories under {@code src/test/resources/models} (see PROVENANCE.md there), unpacked
 * once per JVM into a temp directory: {@code tokenizer.json} is stored gzipped to keep the
 * repository small.
 */
final class TestModels {

  static final List<String> NAMES = List.of("qwen2_5_vl", "qwen3_vl", "llava_1_5");
  private static final Map<String, Path> UNPACKED = new ConcurrentHashMap<>();
  private static Path root;

  private TestModels() {}

  static synchronized Path dir(String name) {
    return UNPACKED.computeIfAbsent(name, TestModels::unpack);
  }

  static HfModel model(String name) {
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
      URL url = TestModels.class.getResource("/models/" + name);
      if (url == null) {
        throw new IllegalStateException("no test model " + name);
      }
      Path src = Path.of(url.toURI());
      Path dst = Files.createDirectories(root.resolve(name));
      try (Stream<Path> files = Files.list(src)) {
        for (Path f : files.toList()) {
          String file = f.getFileName().toString();
          if (file.endsWith(".gz")) {
            try (InputStream in = new GZIPInputStream(Files.newInputStream(f))) {
              Files.copy(in, dst.resolve(file.substring(0, file.length() - 3)));
            }
          } else {
            Files.copy(f, dst.resolve(file));
          }
        }
      }
      return dst;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
