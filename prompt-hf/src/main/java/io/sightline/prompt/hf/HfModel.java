package io.sightline.prompt.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.sightline.routing.multimodal.spec.ModelProcessorSpec;
import io.sightline.routing.multimodal.spec.ProcessorSpecs;
import io.sightline.routing.prompt.ApproximateEncoder;
import io.sightline.routing.prompt.ChatTemplate;
import io.sightline.routing.prompt.FallbackPromptEncoder;
import io.sightline.routing.prompt.ImageTokenEstimator;
import io.sightline.routing.prompt.PromptEncoder;
import io.sightline.routing.prompt.PromptEncodingException;
import io.sightline.routing.prompt.TemplatedPromptEncoder;
import io.sightline.routing.prompt.TokenizerSpi;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One model directory in Hugging Face layout, loaded once: {@code tokenizer.json}, {@code
 * tokenizer_config.json} (special tokens, chat template), {@code chat_template.jinja} / {@code
 * chat_template.json}, {@code config.json}, {@code generation_config.json}. Immutable and
 * thread-safe; get instances through {@link HfModels#load(Path)}, which caches them.
 *
 * <p>Chat template resolution follows vLLM's {@code resolve_hf_chat_template} for multimodal
 * models: the processor's template ({@code chat_template.jinja}, then {@code chat_template.json})
 * before the tokenizer's ({@code tokenizer_config.json}'s {@code chat_template}, a string or a list
 * of named templates of which "default" is used). A directory without {@code tokenizer.json} loads
 * in approximate mode only.
 *
 * <p>The image placeholder id comes from {@code config.json} ({@code image_token_id} – Qwen-VL – or
 * {@code image_token_index} – LLaVA), else from the vocabulary ({@code <|image_pad|>}, {@code
 * <image>}, {@code <|image|>}).
 */
public final class HfModel {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * System property: characters of tokenized text segments cached per model ({@link
   * SegmentCachingTokenizer}); 0 disables the cache. Default {@value #DEFAULT_SEGMENT_CACHE_CHARS}
   * (about 3 bytes per char of heap with the ids).
   */
  public static final String SEGMENT_CACHE_PROPERTY = "sightline.prompt.segment-cache-chars";

  public static final long DEFAULT_SEGMENT_CACHE_CHARS = 4_000_000L;

  /**
   * System property: {@code djl} (default) tokenizes with DJL; {@code java} uses {@link
   * ByteLevelBpeTokenizer} where the tokenizer.json shape allows (Qwen-style byte-level BPE), DJL
   * elsewhere.
   */
  public static final String TOKENIZER_PROPERTY = "sightline.prompt.tokenizer";

  private static final List<String> PLACEHOLDER_TOKENS =
      List.of("<|image_pad|>", "<image>", "<|image|>", "<start_of_image>");

  private final Path directory;
  private final JsonNode config;
  private final JsonNode tokenizerConfig;
  private final JsonNode generationConfig;
  private final DjlTokenizer tokenizer;
  private final TokenizerSpi encodingTokenizer;
  private final JinjaChatTemplate chatTemplate;
  private final String chatTemplateError;
  private final Map<String, Object> specialTokens;
  private final OptionalInt imagePlaceholderId;
  private final TemplatedPromptEncoder exactEncoder;
  private final FallbackPromptEncoder promptEncoder;

  private HfModel(Path directory) throws HfModelException {
    this.directory = directory;
    this.config = readJson(directory.resolve("config.json"));
    this.tokenizerConfig = readJson(directory.resolve("tokenizer_config.json"));
    this.generationConfig = readJson(directory.resolve("generation_config.json"));
    this.specialTokens = specialTokens(tokenizerConfig);

    Path tokenizerJson = directory.resolve("tokenizer.json");
    if (Files.isRegularFile(tokenizerJson)) {
      try {
        boolean rewrites =
            truthy(tokenizerConfig.get("do_lower_case"))
                || truthy(tokenizerConfig.get("strip_accents"))
                || truthy(tokenizerConfig.get("add_prefix_space"));
        this.tokenizer = DjlTokenizer.load(directory, rewrites);
        TokenizerSpi base = tokenizer;
        if (!rewrites && "java".equalsIgnoreCase(System.getProperty(TOKENIZER_PROPERTY, "djl"))) {
          base =
              ByteLevelBpeTokenizer.load(tokenizerJson, tokenizer)
                  .<TokenizerSpi>map(t -> t)
                  .orElse(tokenizer);
        }
        this.encodingTokenizer =
            rewrites
                ? tokenizer
                : SegmentCachingTokenizer.create(base, tokenizerJson, segmentCacheChars())
                    .<TokenizerSpi>map(t -> t)
                    .orElse(base);
      } catch (IOException | RuntimeException e) {
        throw new HfModelException("cannot load " + tokenizerJson + ": " + e.getMessage(), e);
      }
    } else {
      this.tokenizer = null;
      this.encodingTokenizer = null;
    }

    String templateSource = templateSource(directory, tokenizerConfig);
    JinjaChatTemplate parsed = null;
    String error = null;
    if (templateSource != null) {
      try {
        parsed = JinjaChatTemplate.parse(templateSource);
      } catch (PromptEncodingException e) {
        // Not fatal for the model: chat requests fall back to approximate, completions still work.
        error = e.getMessage();
      }
    } else {
      error = "no chat template in " + directory;
    }
    this.chatTemplate = parsed;
    this.chatTemplateError = error;
    this.imagePlaceholderId = placeholderId();

    if (tokenizer != null) {
      ChatTemplate template = chatTemplate;
      if (template == null) {
        String message = chatTemplateError;
        template =
            context -> {
              throw new PromptEncodingException(
                  PromptEncodingException.Kind.TEMPLATE_ERROR, message);
            };
      }
      this.exactEncoder =
          new TemplatedPromptEncoder(
              template, encodingTokenizer, specialTokens, imagePlaceholderId);
    } else {
      this.exactEncoder = null;
    }
    this.promptEncoder = new FallbackPromptEncoder(exactEncoder, new ApproximateEncoder(), null);
  }

  static HfModel load(Path directory) throws HfModelException {
    if (!Files.isDirectory(directory)) {
      throw new HfModelException("not a model directory: " + directory);
    }
    return new HfModel(directory);
  }

  public Path directory() {
    return directory;
  }

  /** {@code config.json}, or a missing node. */
  public JsonNode config() {
    return config;
  }

  /** {@code tokenizer_config.json}, or a missing node. */
  public JsonNode tokenizerConfig() {
    return tokenizerConfig;
  }

  /** {@code generation_config.json}, or a missing node. */
  public JsonNode generationConfig() {
    return generationConfig;
  }

  /** {@code config.json}'s {@code model_type}, if present. */
  public Optional<String> modelType() {
    JsonNode t = config.get("model_type");
    return t != null && t.isTextual() ? Optional.of(t.asText()) : Optional.empty();
  }

  /** True if {@code tokenizer.json} is present, i.e. exact encoding is possible. */
  public boolean hasTokenizer() {
    return tokenizer != null;
  }

  /** The plain DJL tokenizer. */
  public Optional<DjlTokenizer> tokenizer() {
    return Optional.ofNullable(tokenizer);
  }

  /**
   * The tokenizer the encoders use: the DJL one behind a {@link SegmentCachingTokenizer} when the
   * tokenizer allows segment-wise encoding and the cache is enabled, else the DJL one.
   */
  public Optional<TokenizerSpi> encodingTokenizer() {
    return Optional.ofNullable(encodingTokenizer);
  }

  private static long segmentCacheChars() {
    String v = System.getProperty(SEGMENT_CACHE_PROPERTY);
    if (v == null || v.isBlank()) {
      return DEFAULT_SEGMENT_CACHE_CHARS;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      return DEFAULT_SEGMENT_CACHE_CHARS;
    }
  }

  public Optional<JinjaChatTemplate> chatTemplate() {
    return Optional.ofNullable(chatTemplate);
  }

  /** Why the chat template is unusable (missing or does not parse), if it is. */
  public Optional<String> chatTemplateError() {
    return Optional.ofNullable(chatTemplateError);
  }

  /** The token id one image renders to before expansion, if the model takes images. */
  public OptionalInt imagePlaceholderId() {
    return imagePlaceholderId;
  }

  /** Template variables transformers passes from the tokenizer config (bos_token, eos_token …). */
  public Map<String, Object> specialTokens() {
    return specialTokens;
  }

  /** The exact encoder (template + tokenizer), if the model has a tokenizer. */
  public Optional<TemplatedPromptEncoder> exactEncoder() {
    return Optional.ofNullable(exactEncoder);
  }

  /**
   * The encoder to route with: exact, falling back to approximate (counted) when the template or
   * tokenizer fails for a request; approximate only when there is no tokenizer.
   */
  public FallbackPromptEncoder promptEncoder() {
    return promptEncoder;
  }

  /** The image-size estimator for approximate mode, chosen by {@code model_type}. */
  public ImageTokenEstimator imageTokenEstimator() {
    return ImageTokenEstimator.forFamily(modelType().orElse(""));
  }

  /** Encoder for callers that want failures, not fallbacks. */
  public PromptEncoder strictEncoder() {
    return exactEncoder != null ? exactEncoder : new ApproximateEncoder();
  }

  private OptionalInt placeholderId() {
    // The processor spec knows the prompt-side marker where it differs from the embedding token
    // (Gemma 3 <start_of_image>, Llama 4 <|image|>).
    Optional<ModelProcessorSpec> spec = ProcessorSpecs.fromModelDirectory(directory);
    if (spec.isPresent()) {
      return OptionalInt.of(spec.get().promptPlaceholderTokenId());
    }
    for (String field : List.of("image_token_id", "image_token_index")) {
      JsonNode n = config.get(field);
      if (n != null && n.canConvertToInt()) {
        return OptionalInt.of(n.intValue());
      }
    }
    if (tokenizer != null) {
      for (String token : PLACEHOLDER_TOKENS) {
        OptionalInt id = tokenizer.tokenId(token);
        if (id.isPresent()) {
          return id;
        }
      }
    }
    return OptionalInt.empty();
  }

  private static String templateSource(Path dir, JsonNode tokenizerConfig) throws HfModelException {
    Path jinja = dir.resolve("chat_template.jinja");
    if (Files.isRegularFile(jinja)) {
      try {
        return Files.readString(jinja, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new HfModelException("cannot read " + jinja + ": " + e.getMessage(), e);
      }
    }
    JsonNode processor = readJson(dir.resolve("chat_template.json"));
    String fromProcessor = templateField(processor.get("chat_template"));
    if (fromProcessor != null) {
      return fromProcessor;
    }
    return templateField(tokenizerConfig.get("chat_template"));
  }

  private static String templateField(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (node.isTextual()) {
      return node.asText();
    }
    if (node.isArray()) {
      for (JsonNode named : node) {
        if ("default".equals(named.path("name").asText()) && named.path("template").isTextual()) {
          return named.get("template").asText();
        }
      }
    }
    return null;
  }

  private static Map<String, Object> specialTokens(JsonNode tokenizerConfig) {
    Map<String, Object> tokens = new LinkedHashMap<>();
    for (String key :
        List.of(
            "bos_token",
            "eos_token",
            "unk_token",
            "sep_token",
            "pad_token",
            "cls_token",
            "mask_token")) {
      String value = tokenString(tokenizerConfig.get(key));
      if (value != null) {
        tokens.put(key, value);
      }
    }
    JsonNode additional = tokenizerConfig.get("additional_special_tokens");
    if (additional != null && additional.isArray()) {
      List<String> list = new java.util.ArrayList<>();
      for (JsonNode t : additional) {
        String s = tokenString(t);
        if (s != null) {
          list.add(s);
        }
      }
      tokens.put("additional_special_tokens", list);
    }
    JsonNode extra = tokenizerConfig.get("extra_special_tokens");
    if (extra != null && extra.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> it = extra.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        String s = tokenString(e.getValue());
        if (s != null) {
          tokens.putIfAbsent(e.getKey(), s);
        }
      }
    }
    return Map.copyOf(tokens);
  }

  /** A special token is a string or an AddedToken object with {@code content}. */
  private static String tokenString(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (node.isTextual()) {
      return node.asText();
    }
    JsonNode content = node.get("content");
    return content != null && content.isTextual() ? content.asText() : null;
  }

  private static boolean truthy(JsonNode node) {
    return node != null && node.isBoolean() && node.booleanValue();
  }

  private static JsonNode readJson(Path file) throws HfModelException {
    if (!Files.isRegularFile(file)) {
      return MissingNode.getInstance();
    }
    try {
      JsonNode node = JSON.readTree(file.toFile());
      return node == null ? MissingNode.getInstance() : node;
    } catch (IOException e) {
      throw new HfModelException("invalid JSON in " + file + ": " + e.getMessage(), e);
    }
  }
}
