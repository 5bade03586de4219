package io.sightline.routing.multimodal.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The JSON files of a Hugging Face model directory that processor specs read: {@code config.json},
 * {@code preprocessor_config.json}, {@code processor_config.json}, {@code tokenizer_config.json},
 * {@code added_tokens.json}, and — only when a token must be found by probing the vocabulary —
 * {@code tokenizer.json}. Absent files read as empty objects.
 */
public final class ModelFiles {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final Path dir;
  private final JsonNode config;
  private final JsonNode preprocessor;
  private final JsonNode processor;
  private final JsonNode tokenizerConfig;
  private final JsonNode addedTokens;
  private JsonNode tokenizerJson; // lazily loaded

  private ModelFiles(
      Path dir,
      JsonNode config,
      JsonNode preprocessor,
      JsonNode processor,
      JsonNode tokenizerConfig,
      JsonNode addedTokens) {
    this.dir = dir;
    this.config = config;
    this.preprocessor = preprocessor;
    this.processor = processor;
    this.tokenizerConfig = tokenizerConfig;
    this.addedTokens = addedTokens;
  }

  /**
   * Reads the directory's files.
   *
   * @throws SpecException when the directory or its {@code config.json} is missing, or a present
   *     file is not valid JSON
   */
  public static ModelFiles read(Path dir) throws SpecException {
    if (dir == null || !Files.isDirectory(dir)) {
      throw new SpecException("not a directory: " + dir);
    }
    if (!Files.isRegularFile(dir.resolve("config.json"))) {
      throw new SpecException("no config.json in " + dir);
    }
    return new ModelFiles(
        dir,
        readJson(dir.resolve("config.json")),
        readJson(dir.resolve("preprocessor_config.json")),
        readJson(dir.resolve("processor_config.json")),
        readJson(dir.resolve("tokenizer_config.json")),
        readJson(dir.resolve("added_tokens.json")));
  }

  private static JsonNode readJson(Path file) throws SpecException {
    if (!Files.isRegularFile(file)) {
      return MAPPER.createObjectNode();
    }
    try {
      JsonNode n = MAPPER.readTree(file.toFile());
      if (n == null || !n.isObject()) {
        throw new SpecException(file.getFileName() + " is not a JSON object");
      }
      return n;
    } catch (IOException e) {
      throw new SpecException("cannot read " + file.getFileName() + ": " + e.getMessage());
    }
  }

  public Path directory() {
    return dir;
  }

  public JsonNode config() {
    return config;
  }

  public JsonNode preprocessor() {
    return preprocessor;
  }

  /**
   * {@code processor_config.json}; newer checkpoints (Gemma 4) nest the image processor's settings
   * under {@code image_processor} here instead of shipping a preprocessor_config.json.
   */
  public JsonNode processor() {
    return processor;
  }

  public JsonNode tokenizerConfig() {
    return tokenizerConfig;
  }

  /** {@code config.json} {@code model_type}, or empty. */
  public String modelType() {
    return config.path("model_type").asText("");
  }

  /** First entry of {@code config.json} {@code architectures}, or empty. */
  public String architecture() {
    JsonNode a = config.path("architectures");
    return a.isArray() && !a.isEmpty() ? a.get(0).asText("") : "";
  }

  /**
   * The id of a token given by its text: {@code tokenizer_config.json} {@code
   * added_tokens_decoder}, {@code added_tokens.json}, then {@code tokenizer.json} (added tokens and
   * the model vocabulary).
   */
  public OptionalInt tokenId(String token) throws SpecException {
    if (token == null || token.isEmpty()) {
      return OptionalInt.empty();
    }
    JsonNode dec = tokenizerConfig.path("added_tokens_decoder");
    for (Iterator<Map.Entry<String, JsonNode>> it = dec.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (token.equals(e.getValue().path("content").asText(null))) {
        try {
          return OptionalInt.of(Integer.parseInt(e.getKey()));
        } catch (NumberFormatException nfe) {
          throw new SpecException("added_tokens_decoder key is not an id: " + e.getKey());
        }
      }
    }
    JsonNode added = addedTokens.path(token);
    if (added.canConvertToInt()) {
      return OptionalInt.of(added.asInt());
    }
    JsonNode tj = tokenizerJson();
    for (JsonNode t : tj.path("added_tokens")) {
      if (token.equals(t.path("content").asText(null)) && t.path("id").canConvertToInt()) {
        return OptionalInt.of(t.path("id").asInt());
      }
    }
    JsonNode v = tj.path("model").path("vocab");
    if (v.isObject() && v.path(token).canConvertToInt()) {
      return OptionalInt.of(v.path(token).asInt());
    }
    return OptionalInt.empty();
  }

  private JsonNode tokenizerJson() throws SpecException {
    if (tokenizerJson == null) {
      Path p = dir.resolve("tokenizer.json");
      tokenizerJson = Files.isRegularFile(p) ? readJson(p) : MissingNode.getInstance();
    }
    return tokenizerJson;
  }

  /**
   * The BOS id to prepend, when {@code tokenizer_config.json} says {@code add_bos_token: true} and
   * its {@code bos_token} (a string or an AddedToken object) resolves to one id.
   */
  public OptionalInt bosTokenId() throws SpecException {
    if (!tokenizerConfig.path("add_bos_token").asBoolean(false)) {
      return OptionalInt.empty();
    }
    JsonNode bos = tokenizerConfig.path("bos_token");
    String text = bos.isObject() ? bos.path("content").asText(null) : bos.asText(null);
    return text == null ? OptionalInt.empty() : tokenId(text);
  }
}
