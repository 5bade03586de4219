package io.sightline.prompt.hf.testing;

import io.sightline.prompt.hf.HfModel;
import io.sightline.prompt.hf.HfModelException;
import io.sightline.prompt.hf.HfModels;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

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
      URL url = TestModels.class.getResource("/models/" + name);
      if (url == null) {
        throw new IllegalStateException("no test model " + name);
      }
      URI uri = url.toURI();
      if (uri.getScheme().equals("jar")) {
        try {
          FileSystems.newFileSystem(uri, Map.of());
        } catch (FileSystemAlreadyExistsException e) {
          // opened by an earlier call
        }
      }
      Path src = Path.of(uri);
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
