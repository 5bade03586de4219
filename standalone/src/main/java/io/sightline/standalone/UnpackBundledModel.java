package io.sightline.standalone;

import io.sightline.prompt.hf.ModelBundles;
import java.nio.file.Path;

/**
 * Writes the bundled default model's files (configuration, chat template, tokenizer; no weights)
 * into a directory, for deployments whose router and workers read them from a shared volume (the
 * compose file's and the Helm chart's init step).
 *
 * <p>Usage: {@code java -Dloader.main=io.sightline.standalone.UnpackBundledModel -cp sightline.jar
 * org.springframework.boot.loader.launch.PropertiesLauncher TARGET_DIR}
 */
public final class UnpackBundledModel {
  private UnpackBundledModel() {}

  public static void main(String[] args) {
    if (args.length != 1) {
      System.err.println("usage: UnpackBundledModel TARGET_DIR");
      System.exit(2);
    }
    Path dir =
        ModelBundles.unpack(
            UnpackBundledModel.class, "/models/Qwen2.5-VL-7B-Instruct", Path.of(args[0]));
    System.out.println("Qwen2.5-VL-7B-Instruct files in " + dir.toAbsolutePath());
  }
}
