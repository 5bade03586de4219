package io.sightline.cli;

import io.sightline.routing.multimodal.spec.ImageTokenCountException;
import io.sightline.routing.multimodal.spec.ModelProcessorSpec;
import io.sightline.routing.multimodal.spec.ProcessorSpecs;
import io.sightline.routing.multimodal.spec.SpecResolution;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code image-tokens}: how many image tokens a model's processor produces per image size, using
 * the processor spec read from a Hugging Face model directory.
 */
@Command(
    name = "image-tokens",
    mixinStandardHelpOptions = true,
    description = {
      "Count the image tokens a model's processor produces per image size.",
      "",
      "Prints one JSON object per size: {\"width\",\"height\",\"num_image_tokens\",\"family\","
          + "\"placeholder_token_id\"}.",
      "Exit 2 (with a one-line explanation) when the model is not a supported VLM family;",
      "exit 1 when a size is rejected by the processor (that size gets an error line)."
    })
final class ImageTokensCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--model-dir",
      required = true,
      paramLabel = "DIR",
      description =
          "Model directory in Hugging Face layout (config.json, preprocessor_config.json…)")
  Path modelDir;

  @Option(
      names = "--size",
      required = true,
      paramLabel = "WxH",
      converter = Size.Converter.class,
      description = "Image size, e.g. 1920x1080 (repeatable)")
  List<Size> sizes;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    SpecResolution r = ProcessorSpecs.resolve(modelDir);
    if (r.spec().isEmpty()) {
      err.println("sightline: " + modelDir + ": " + r.reason());
      err.flush();
      return 2;
    }
    ModelProcessorSpec s = r.spec().get();
    int status = 0;
    for (Size size : sizes) {
      String line;
      try {
        int n = s.numImageTokens(size.width(), size.height());
        line =
            Json.object(
                g -> {
                  g.writeNumberField("width", size.width());
                  g.writeNumberField("height", size.height());
                  g.writeNumberField("num_image_tokens", n);
                  g.writeStringField("family", s.family().id());
                  g.writeNumberField("placeholder_token_id", s.placeholderTokenId());
                });
      } catch (ImageTokenCountException e) {
        status = 1;
        line =
            Json.object(
                g -> {
                  g.writeNumberField("width", size.width());
                  g.writeNumberField("height", size.height());
                  g.writeStringField("error", e.getMessage());
                });
      }
      out.println(line);
    }
    out.flush();
    return status;
  }

  /** An image size given as {@code WxH}. */
  record Size(int width, int height) {
    static final class Converter implements CommandLine.ITypeConverter<Size> {
      @Override
      public Size convert(String value) {
        String[] p = value.trim().toLowerCase(java.util.Locale.ROOT).split("x", -1);
        if (p.length == 2) {
          try {
            int w = Integer.parseInt(p[0]);
            int h = Integer.parseInt(p[1]);
            if (w > 0 && h > 0) {
              return new Size(w, h);
            }
          } catch (NumberFormatException ignored) {
            // falls through to the error below
          }
        }
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not a size WxH with positive integers (e.g. 1920x1080)");
      }
    }
  }
}
