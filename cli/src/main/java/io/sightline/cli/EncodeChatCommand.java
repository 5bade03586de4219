package io.sightline.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.prompt.hf.HfModel;
import io.sightline.prompt.hf.HfModelException;
import io.sightline.prompt.hf.HfModels;
import io.sightline.routing.expansion.ExpansionException;
import io.sightline.routing.expansion.MmScheme;
import io.sightline.routing.multimodal.ImageHeaderProbe;
import io.sightline.routing.multimodal.MmHashes;
import io.sightline.routing.multimodal.ProbeResult;
import io.sightline.routing.multimodal.spec.ImageTokenCountException;
import io.sightline.routing.multimodal.spec.ProcessorSpecs;
import io.sightline.routing.multimodal.spec.SpecResolution;
import io.sightline.routing.prompt.EncodedPrompt;
import io.sightline.routing.prompt.PromptEncodingException;
import io.sightline.routing.prompt.PromptExpansion;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code sightline encode-chat --model-dir DIR}: reads an OpenAI chat-completions request (JSON) on
 * stdin and prints what the router computes for it – the rendered prompt, its token ids (exactly as
 * vLLM would tokenize them), the number of images and the routing token ids (each image placeholder
 * expanded into the model's image token count, carrying the image's identity per the chosen
 * scheme).
 *
 * <p>Images given as {@code data:} URIs or local file paths ({@code file:} URIs or plain paths) are
 * sized from their headers ({@link ImageHeaderProbe}); remote URLs cannot be fetched here, so they
 * need {@code --default-image-size}. The image's identity is the {@code mm_hash} the router uses:
 * the decoded bytes for {@code data:} URIs and local files, the URL string otherwise.
 *
 * <p>Exit codes: 0 ok, 1 the request cannot be encoded or expanded, 2 usage / unreadable input.
 */
@Command(
    name = "encode-chat",
    mixinStandardHelpOptions = true,
    description =
        "Render and tokenize an OpenAI chat request (JSON on stdin) for a model directory and print"
            + " prompt, token_ids, num_images and routing_token_ids as JSON.")
public final class EncodeChatCommand implements Callable<Integer> {

  /** Bytes read from a local image to find its size; headers sit well inside this. */
  static final int HEADER_PREFIX = 64 * 1024;

  private static final ObjectMapper JSON = new ObjectMapper();

  @Spec CommandSpec spec;

  /** The top-level command, which owns standard input (null when run on its own). */
  @ParentCommand SightlineCli parent;

  @Option(
      names = "--model-dir",
      required = true,
      description = "Model directory in Hugging Face layout (tokenizer.json, chat template, ...).")
  Path modelDir;

  @Option(
      names = "--scheme",
      defaultValue = "gen1",
      description =
          "How images enter routing tokens: gen1, gen2 or off (default: ${DEFAULT-VALUE}).")
  String scheme;

  @Option(names = "--input", description = "Read the request from this file instead of stdin.")
  Path input;

  @Option(
      names = "--default-image-size",
      description = "WxH assumed for images whose size cannot be read here (remote URLs).")
  String defaultImageSize;

  @Option(names = "--pretty", description = "Indent the JSON output.")
  boolean pretty;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    MmScheme mmScheme = MmScheme.parse(scheme).orElse(null);
    if (mmScheme == null) {
      err.println("error: --scheme must be gen1, gen2 or off, not '" + scheme + "'");
      return 2;
    }
    int[] fallbackSize = null;
    if (defaultImageSize != null) {
      fallbackSize = parseSize(defaultImageSize);
      if (fallbackSize == null) {
        err.println("error: --default-image-size must look like 640x360");
        return 2;
      }
    }
    JsonNode request;
    try {
      if (input != null) {
        try (InputStream in = Files.newInputStream(input)) {
          request = JSON.readTree(in);
        }
      } else {
        // Not closed: standard input belongs to the process (or to the in-process test).
        request = JSON.readTree(parent != null ? parent.stdin() : System.in);
      }
    } catch (IOException e) {
      err.println("error: cannot read the request: " + e.getMessage());
      return 2;
    }
    if (request == null || !request.isObject()) {
      err.println("error: the request must be a JSON object");
      return 2;
    }
    HfModel model;
    try {
      model = HfModels.load(modelDir);
    } catch (HfModelException e) {
      err.println("error: " + e.getMessage());
      return 2;
    }
    try {
      ObjectNode result = encode(model, request, mmScheme, fallbackSize);
      out.println(
          pretty
              ? JSON.writerWithDefaultPrettyPrinter().writeValueAsString(result)
              : JSON.writeValueAsString(result));
      out.flush();
      return 0;
    } catch (PromptEncodingException | ExpansionException | ImageException e) {
      err.println("error: " + e.getMessage());
      return 1;
    } catch (IOException e) {
      err.println("error: " + e.getMessage());
      return 2;
    }
  }

  /** One resolved image: identity and size. */
  record ResolvedImage(String source, long mmHash, int width, int height) {}

  /** An image cannot be identified or sized. */
  static final class ImageException extends Exception {
    ImageException(String message) {
      super(message);
    }
  }

  ObjectNode encode(HfModel model, JsonNode request, MmScheme mmScheme, int[] fallbackSize)
      throws PromptEncodingException, ExpansionException, ImageException {
    EncodedPrompt encoded = model.promptEncoder().encodeChat(request);
    List<ResolvedImage> images = resolveImages(request, fallbackSize);

    SpecResolution resolution = ProcessorSpecs.resolve(model.directory());
    List<PromptExpansion.Image> expansionImages = new ArrayList<>();
    for (ResolvedImage img : images) {
      expansionImages.add(new PromptExpansion.Image(img.mmHash(), img.width(), img.height()));
    }
    int[] routing;
    try {
      routing =
          PromptExpansion.expand(
                  encoded,
                  resolution.spec(),
                  model.imageTokenEstimator(),
                  expansionImages,
                  mmScheme)
              .tokenIds();
    } catch (ImageTokenCountException e) {
      throw new ImageException(e.getMessage());
    }
    String routingNote;
    if (mmScheme == MmScheme.OFF || images.isEmpty()) {
      routingNote = images.isEmpty() ? "no images" : "scheme off: text only";
    } else if (!encoded.exact()) {
      routingNote = "approximate: image sizes estimated";
    } else if (resolution.spec().isPresent()) {
      routingNote = resolution.spec().get().family() + " processor spec";
    } else {
      routingNote = resolution.reason();
    }

    ObjectNode result = JSON.createObjectNode();
    result.put("prompt", encoded.prompt());
    result.set("token_ids", ids(encoded.tokenIds()));
    result.put("num_images", encoded.numImages());
    result.set("routing_token_ids", ids(routing));
    result.put("mode", encoded.mode().name().toLowerCase(java.util.Locale.ROOT));
    if (encoded.fallbackReason() != null) {
      result.put("fallback_reason", encoded.fallbackReason());
    }
    result.put("routing", routingNote);
    ArrayNode imgs = result.putArray("images");
    for (ResolvedImage img : images) {
      ObjectNode o = imgs.addObject();
      o.put("width", img.width());
      o.put("height", img.height());
      o.put("mm_hash", MmHashes.forwardable(img.mmHash()));
    }
    return result;
  }

  private static ArrayNode ids(int[] ids) {
    ArrayNode a = JSON.createArrayNode();
    for (int id : ids) {
      a.add(id);
    }
    return a;
  }

  /** Image URLs of the request, in the order vLLM sees them (message order, then part order). */
  static List<String> imageUrls(JsonNode request) {
    List<String> urls = new ArrayList<>();
    for (JsonNode message : request.path("messages")) {
      JsonNode content = message.get("content");
      if (content == null || !content.isArray()) {
        continue;
      }
      for (JsonNode part : content) {
        String type = part.path("type").asText(null);
        boolean image =
            "image_url".equals(type)
                || "input_image".equals(type)
                || (type == null && part.has("image_url"));
        if (!image) {
          continue;
        }
        JsonNode url = part.get("image_url");
        urls.add(
            url != null && url.isObject()
                ? url.path("url").asText("")
                : url == null ? "" : url.asText(""));
      }
    }
    return urls;
  }

  private List<ResolvedImage> resolveImages(JsonNode request, int[] fallbackSize)
      throws ImageException {
    List<ResolvedImage> out = new ArrayList<>();
    int index = 0;
    for (String url : imageUrls(request)) {
      out.add(resolve(url, index++, fallbackSize));
    }
    return out;
  }

  static ResolvedImage resolve(String url, int index, int[] fallbackSize) throws ImageException {
    String label = "image " + index;
    if (url.startsWith("data:")) {
      int comma = url.indexOf(',');
      if (comma < 0 || !url.substring(0, comma).endsWith(";base64")) {
        throw new ImageException(label + ": only base64 data: URIs are supported");
      }
      byte[] bytes;
      try {
        bytes = Base64.getMimeDecoder().decode(url.substring(comma + 1));
      } catch (IllegalArgumentException e) {
        throw new ImageException(label + ": invalid base64 in data: URI");
      }
      int[] size = size(bytes, true, label);
      return new ResolvedImage(label, MmHashes.ofBytes(bytes), size[0], size[1]);
    }
    Path local = localPath(url);
    if (local != null) {
      byte[] bytes;
      try {
        bytes = Files.readAllBytes(local);
      } catch (IOException e) {
        throw new ImageException(label + ": cannot read " + local + ": " + e.getMessage());
      }
      int[] size = size(bytes, true, label);
      return new ResolvedImage(label, MmHashes.ofBytes(bytes), size[0], size[1]);
    }
    if (fallbackSize == null) {
      throw new ImageException(
          label
              + ": cannot read the size of '"
              + abbreviate(url)
              + "' here; pass a data: URI or a local file, or --default-image-size WxH");
    }
    return new ResolvedImage(label, MmHashes.ofUrl(url), fallbackSize[0], fallbackSize[1]);
  }

  private static Path localPath(String url) {
    try {
      if (url.startsWith("file:")) {
        return Path.of(URI.create(url));
      }
      if (url.contains("://")) {
        return null;
      }
      Path p = Path.of(url);
      return Files.isRegularFile(p) ? p : null;
    } catch (IllegalArgumentException e) { // includes InvalidPathException
      return null;
    }
  }

  private static int[] size(byte[] bytes, boolean complete, String label) throws ImageException {
    int length = Math.min(bytes.length, HEADER_PREFIX);
    ProbeResult r = ImageHeaderProbe.probe(bytes, 0, length, complete && length == bytes.length);
    if (r instanceof ProbeResult.Dimensions d) {
      return new int[] {d.width(), d.height()};
    }
    if (r instanceof ProbeResult.NeedMoreBytes n) {
      throw new ImageException(label + ": image header is truncated (" + n.reason() + ")");
    }
    ProbeResult.Malformed m = (ProbeResult.Malformed) r;
    throw new ImageException(label + ": not a supported image (" + m.reason() + ")");
  }

  static int[] parseSize(String s) {
    String[] parts = s.toLowerCase(java.util.Locale.ROOT).split("x");
    if (parts.length != 2) {
      return null;
    }
    try {
      int w = Integer.parseInt(parts[0].trim());
      int h = Integer.parseInt(parts[1].trim());
      return w > 0 && h > 0 ? new int[] {w, h} : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
