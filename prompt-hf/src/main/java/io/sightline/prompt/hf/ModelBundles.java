package io.sightline.prompt.hf;

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
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * Unpacks a model directory shipped as class-path resources (inside a jar or on disk) into a real
 * directory that DJL and file-based readers can open. Files named {@code *.gz} are gunzipped on the
 * way ({@code tokenizer.json} is kept gzipped in the repository: 7 MB → 1.9 MB).
 *
 * <p>Unpacking is idempotent: a file already present with content is left alone, so a cache
 * directory can be reused across runs.
 */
public final class ModelBundles {
  private ModelBundles() {}

  /**
   * Copies the resources under {@code resourceDir} (e.g. {@code /models/Qwen2.5-VL-7B-Instruct}) as
   * seen by {@code anchor}'s class loader into {@code target}, and returns {@code target}.
   */
  public static Path unpack(Class<?> anchor, String resourceDir, Path target) {
    URL url = anchor.getResource(resourceDir);
    if (url == null) {
      throw new IllegalArgumentException("no bundled model at class-path " + resourceDir);
    }
    try {
      URI uri = url.toURI();
      if (uri.getScheme().equals("jar")) {
        try {
          FileSystems.newFileSystem(uri, Map.of());
        } catch (FileSystemAlreadyExistsException e) {
          // another bundle from the same jar opened it first
        }
      }
      return unpackDirectory(Path.of(uri), target);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open " + resourceDir, e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Copies the files of {@code source} (a directory on any file system, e.g. inside a jar) into
   * {@code target}, gunzipping {@code *.gz}, and returns {@code target}.
   */
  public static Path unpackDirectory(Path source, Path target) {
    try {
      Files.createDirectories(target);
      try (Stream<Path> files = Files.list(source)) {
        for (Path file : files.toList()) {
          String name = file.getFileName().toString().replace("/", "");
          boolean gz = name.endsWith(".gz");
          Path dst = target.resolve(gz ? name.substring(0, name.length() - 3) : name);
          if (Files.isRegularFile(dst) && Files.size(dst) > 0) {
            continue;
          }
          Path tmp = Files.createTempFile(target, ".unpack-", ".tmp");
          try (InputStream in =
              gz ? new GZIPInputStream(Files.newInputStream(file)) : Files.newInputStream(file)) {
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
          }
          Files.move(tmp, dst, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unpack " + source + " into " + target, e);
    }
  }
}
