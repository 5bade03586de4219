package io.sightline.registry.service;

import com.fasterxml.jackson.databind.JsonNode;
import io.sightline.registry.model.HfSource;
import io.sightline.registry.model.KvEventSource;
import io.sightline.registry.model.LoraAdapter;
import io.sightline.registry.model.MediaDecoder;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.RoutingMode;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.routing.multimodal.spec.VlmFamily;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Schema-level checks for cards and workers, collecting every problem with its JSON path (the rules
 * are the ones documented in {@code schema/*.schema.json} and docs/registry.md). Cross-entity rules
 * (aliases unique across cards, worker vs card) live in {@link RegistryService}.
 */
public final class Validator {
  /** Model names: Hugging Face style ids ({@code Qwen/Qwen2-VL-7B-Instruct}) are allowed. */
  static final Pattern MODEL_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,255}");

  /** Worker ids end up in URL paths and etcd keys: no slashes. */
  static final Pattern WORKER_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");

  static final Pattern LABEL_KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/-]{0,62}");
  static final Pattern HEX_DIGEST = Pattern.compile("[0-9a-f]{64}");
  static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");
  static final int MAX_BLOCK_SIZE = 4096;
  static final long MAX_MEDIA_BYTES = 1L << 30;
  static final long MAX_PIXELS = 1L << 31;
  static final int MAX_CONTEXT = 100_000_000;

  private final int maxLeaseTtlSeconds;

  public Validator(int maxLeaseTtlSeconds) {
    this.maxLeaseTtlSeconds = maxLeaseTtlSeconds;
  }

  /** Validates a card that already has its defaults filled. */
  public List<FieldError> validate(ModelCard c) {
    List<FieldError> errors = new ArrayList<>();
    if (c.schemaVersion() != ModelCard.SCHEMA_VERSION) {
      errors.add(
          new FieldError(
              "schema_version",
              "unsupported schema_version "
                  + c.schemaVersion()
                  + " (this registry understands "
                  + ModelCard.SCHEMA_VERSION
                  + ")"));
    }
    name(errors, "name", c.name());
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < c.aliases().size(); i++) {
      String a = c.aliases().get(i);
      String path = "aliases[" + i + "]";
      if (name(errors, path, a)) {
        if (a.equals(c.name())) {
          errors.add(new FieldError(path, "alias equals the model's own name"));
        } else if (!seen.add(a)) {
          errors.add(new FieldError(path, "duplicate alias '" + a + "'"));
        }
      }
    }
    if (c.backend() == null) {
      errors.add(new FieldError("backend", "required (vllm or trtllm)"));
    }
    hf(errors, c.hf());
    if (c.routingMode() == RoutingMode.PRECISE && c.hf() == null) {
      errors.add(
          new FieldError(
              "hf",
              "precise routing needs the model's tokenizer and chat template: set hf.path or"
                  + " hf.files, or use routing_mode approximate"));
    }
    if (c.processorFamily() != null && !knownFamily(c.processorFamily())) {
      errors.add(
          new FieldError(
              "processor_family",
              "unknown processor family '"
                  + c.processorFamily()
                  + "' (known: "
                  + knownFamilies()
                  + ", or none)"));
    }
    if (c.kvBlockSize() < 1 || c.kvBlockSize() > MAX_BLOCK_SIZE) {
      errors.add(
          new FieldError("kv_block_size", "must be between 1 and " + MAX_BLOCK_SIZE + " tokens"));
    }
    MediaDecoder md = c.mediaDecoder();
    if (md.maxBytes() < 1 || md.maxBytes() > MAX_MEDIA_BYTES) {
      errors.add(
          new FieldError("media_decoder.max_bytes", "must be between 1 and " + MAX_MEDIA_BYTES));
    }
    if (md.maxPixels() < 1 || md.maxPixels() > MAX_PIXELS) {
      errors.add(new FieldError("media_decoder.max_pixels", "must be between 1 and " + MAX_PIXELS));
    }
    Set<String> loraNames = new HashSet<>();
    for (int i = 0; i < c.loraAdapters().size(); i++) {
      LoraAdapter l = c.loraAdapters().get(i);
      String path = "lora_adapters[" + i + "]";
      if (l == null) {
        errors.add(new FieldError(path, "must not be null"));
        continue;
      }
      if (name(errors, path + ".name", l.name())) {
        if (!loraNames.add(l.name())) {
          errors.add(new FieldError(path + ".name", "duplicate adapter '" + l.name() + "'"));
        } else if (c.answersTo(l.name())) {
          errors.add(
              new FieldError(path + ".name", "adapter name collides with the model name/alias"));
        }
      }
      if (l.path() != null && l.path().isBlank()) {
        errors.add(new FieldError(path + ".path", "must not be blank when set"));
      }
    }
    if (c.contextLength() != null && (c.contextLength() < 1 || c.contextLength() > MAX_CONTEXT)) {
      errors.add(new FieldError("context_length", "must be between 1 and " + MAX_CONTEXT));
    }
    return errors;
  }

  /** Validates a worker that already has its defaults filled (card checks are separate). */
  public List<FieldError> validate(WorkerInstance w) {
    List<FieldError> errors = new ArrayList<>();
    if (w.schemaVersion() != ModelCard.SCHEMA_VERSION) {
      errors.add(
          new FieldError(
              "schema_version",
              "unsupported schema_version " + w.schemaVersion() + " (expected 1)"));
    }
    if (w.id() == null || w.id().isEmpty()) {
      errors.add(new FieldError("id", "required"));
    } else if (!WORKER_ID.matcher(w.id()).matches()) {
      errors.add(
          new FieldError(
              "id", "must be 1-128 characters of letters, digits, '.', '_', ':' or '-'"));
    }
    if (w.model() == null || w.model().isEmpty()) {
      errors.add(new FieldError("model", "required"));
    }
    if (w.servedModelName() != null && w.servedModelName().isBlank()) {
      errors.add(new FieldError("served_model_name", "must not be blank when set"));
    }
    url(errors, "base_url", w.baseUrl(), true, Set.of("http", "https"));
    if (w.dialect() == null) {
      errors.add(new FieldError("dialect", "required (vllm or trtllm)"));
    }
    if (w.dataParallelSize() < 1 || w.dataParallelSize() > 1024) {
      errors.add(new FieldError("data_parallel_size", "must be between 1 and 1024"));
    }
    if (w.kvBlockSize() != null && (w.kvBlockSize() < 1 || w.kvBlockSize() > MAX_BLOCK_SIZE)) {
      errors.add(
          new FieldError("kv_block_size", "must be between 1 and " + MAX_BLOCK_SIZE + " tokens"));
    }
    events(errors, w);
    url(errors, "metrics_url", w.metricsUrl(), false, Set.of("http", "https"));
    if (w.labels().size() > 64) {
      errors.add(new FieldError("labels", "at most 64 labels"));
    }
    w.labels()
        .forEach(
            (k, v) -> {
              if (!LABEL_KEY.matcher(k).matches()) {
                errors.add(new FieldError("labels." + k, "invalid label key"));
              }
              if (v == null || v.length() > 256) {
                errors.add(new FieldError("labels." + k, "value must be 0-256 characters"));
              }
            });
    if (w.leaseTtlSeconds() != null
        && (w.leaseTtlSeconds() < 1 || w.leaseTtlSeconds() > maxLeaseTtlSeconds)) {
      errors.add(
          new FieldError(
              "lease_ttl_seconds", "must be between 1 and " + maxLeaseTtlSeconds + " seconds"));
    }
    return errors;
  }

  /** Validates an API key record that already has its defaults filled. */
  public List<FieldError> validate(io.sightline.registry.model.ApiKey k) {
    List<FieldError> errors = new ArrayList<>();
    if (k.schemaVersion() != ModelCard.SCHEMA_VERSION) {
      errors.add(
          new FieldError(
              "schema_version",
              "unsupported schema_version " + k.schemaVersion() + " (expected 1)"));
    }
    if (k.name() == null || k.name().isEmpty()) {
      errors.add(new FieldError("name", "required"));
    } else if (!WORKER_ID.matcher(k.name()).matches()) {
      errors.add(
          new FieldError(
              "name", "must be 1-128 characters of letters, digits, '.', '_', ':' or '-'"));
    }
    if (k.hash() == null || !HEX_DIGEST.matcher(k.hash()).matches()) {
      errors.add(
          new FieldError(
              "hash",
              "must be the key's SHA-256 / HMAC-SHA-256 digest as 64 hex digits (never the key"
                  + " itself)"));
    }
    for (int i = 0; i < k.allowedModels().size(); i++) {
      name(errors, "allowed_models[" + i + "]", k.allowedModels().get(i));
    }
    if (k.requestsPerMinute() < 0) {
      errors.add(new FieldError("requests_per_minute", "must be >= 0 (0 = unlimited)"));
    }
    if (k.tokensPerMinute() < 0) {
      errors.add(new FieldError("tokens_per_minute", "must be >= 0 (0 = unlimited)"));
    }
    if (k.description() != null && k.description().length() > 1024) {
      errors.add(new FieldError("description", "at most 1024 characters"));
    }
    return errors;
  }

  private static void events(List<FieldError> errors, WorkerInstance w) {
    KvEventSource e = w.kvEvents();
    if (e.kind() == null) {
      errors.add(new FieldError("kv_events.kind", "required (zmq, trtllm_poll or none)"));
      return;
    }
    switch (e.kind()) {
      case ZMQ -> {
        url(errors, "kv_events.endpoint", e.endpoint(), true, Set.of("tcp", "ipc"));
        url(errors, "kv_events.replay_endpoint", e.replayEndpoint(), false, Set.of("tcp", "ipc"));
        if (e.pollIntervalMs() != null) {
          errors.add(new FieldError("kv_events.poll_interval_ms", "only for trtllm_poll"));
        }
        if (w.dialect() == io.sightline.registry.model.BackendKind.TRTLLM) {
          errors.add(
              new FieldError(
                  "kv_events.kind", "zmq events are vLLM's; a trtllm worker uses trtllm_poll"));
        }
      }
      case TRTLLM_POLL -> {
        url(errors, "kv_events.endpoint", e.endpoint(), true, Set.of("http", "https"));
        if (e.replayEndpoint() != null) {
          errors.add(new FieldError("kv_events.replay_endpoint", "only for zmq"));
        }
        if (e.pollIntervalMs() != null
            && (e.pollIntervalMs() < 10 || e.pollIntervalMs() > 60_000)) {
          errors.add(
              new FieldError("kv_events.poll_interval_ms", "must be between 10 and 60000 ms"));
        }
        if (w.dialect() == io.sightline.registry.model.BackendKind.VLLM) {
          errors.add(
              new FieldError(
                  "kv_events.kind", "trtllm_poll is TensorRT-LLM's; a vllm worker uses zmq"));
        }
      }
      case NONE -> {
        if (e.endpoint() != null || e.replayEndpoint() != null) {
          errors.add(new FieldError("kv_events.endpoint", "kind none takes no endpoint"));
        }
      }
    }
  }

  private static void hf(List<FieldError> errors, HfSource hf) {
    if (hf == null) {
      return;
    }
    boolean hasPath = hf.path() != null;
    boolean hasFiles = hf.files() != null;
    if (hasPath == hasFiles) {
      errors.add(new FieldError("hf", "set exactly one of hf.path and hf.files"));
      return;
    }
    if (hasPath && hf.path().isBlank()) {
      errors.add(new FieldError("hf.path", "must not be blank"));
    }
    if (hasFiles) {
      if (hf.files().isEmpty()) {
        errors.add(new FieldError("hf.files", "must contain at least config.json"));
      }
      for (Map.Entry<String, JsonNode> f : hf.files().entrySet()) {
        String path = "hf.files[\"" + f.getKey() + "\"]";
        if (!FILE_NAME.matcher(f.getKey()).matches() || f.getKey().startsWith(".")) {
          errors.add(new FieldError(path, "file names are plain names like config.json"));
        }
        JsonNode v = f.getValue();
        if (v == null || !(v.isObject() || v.isTextual())) {
          errors.add(new FieldError(path, "must be a JSON object (parsed .json file) or a string"));
        }
      }
    }
  }

  private static boolean name(List<FieldError> errors, String path, String value) {
    if (value == null || value.isEmpty()) {
      errors.add(new FieldError(path, "required"));
      return false;
    }
    if (!MODEL_NAME.matcher(value).matches() || value.contains("//") || value.endsWith("/")) {
      errors.add(
          new FieldError(
              path,
              "must be 1-256 characters: letters, digits and . _ : / @ + - (no empty path"
                  + " segments)"));
      return false;
    }
    return true;
  }

  private static void url(
      List<FieldError> errors, String path, String value, boolean required, Set<String> schemes) {
    if (value == null) {
      if (required) {
        errors.add(new FieldError(path, "required"));
      }
      return;
    }
    try {
      URI u = new URI(value);
      if (u.getScheme() == null || !schemes.contains(u.getScheme().toLowerCase())) {
        errors.add(new FieldError(path, "scheme must be one of " + schemes));
      } else if (!"ipc".equals(u.getScheme()) && (u.getHost() == null || u.getHost().isEmpty())) {
        errors.add(new FieldError(path, "must have a host"));
      }
    } catch (URISyntaxException e) {
      errors.add(new FieldError(path, "not a valid URL: " + e.getReason()));
    }
  }

  static boolean knownFamily(String family) {
    if (ModelCard.FAMILY_NONE.equals(family)) {
      return true;
    }
    return Arrays.stream(VlmFamily.values()).anyMatch(f -> f.id().equals(family));
  }

  static String knownFamilies() {
    return Arrays.stream(VlmFamily.values()).map(VlmFamily::id).collect(Collectors.joining(", "));
  }
}
