package io.sightline.registry.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.sightline.routing.expansion.MmScheme;
import java.util.List;
import java.util.Locale;

/**
 * How one served model must be routed: the registry's unit of configuration (schema {@code
 * model-card.v1}, published as {@code classpath:/schema/model-card.v1.schema.json} and described in
 * {@code docs/registry.md}).
 *
 * <p>The fields follow what Dynamo's model deployment card carries for routing (dynamo.md §9:
 * kv_cache_block_size, media_decoder, lora, context_length, backend_framework) plus what Sightline
 * needs for image-aware routing: the processor family that decides how many tokens an image expands
 * to, and the multimodal hashing scheme. Cards are immutable values; the store keeps a revision per
 * card for optimistic concurrency.
 *
 * @param schemaVersion version of this schema; {@value #SCHEMA_VERSION} is the only one so far
 * @param name served model name, what clients put in {@code model}
 * @param aliases other names that resolve to this card (unique across the registry)
 * @param backend inference engine ({@code vllm} / {@code trtllm})
 * @param hf where the model's Hugging Face files are (directory or inline); required for {@code
 *     precise} routing, which needs the exact tokenizer and chat template
 * @param processorFamily VLM processor family id (e.g. {@code qwen2_vl}), {@code none} for a
 *     text-only model; detected from the HF files when omitted
 * @param processorFamilySource {@code override} when the writer set the family, {@code detected}
 *     when the registry found it in the HF files, {@code none} when neither (text-only routing);
 *     set by the registry
 * @param kvBlockSize tokens per KV block; every worker of the model must report the same
 * @param mmScheme how image identity enters block hashes ({@code gen1} / {@code gen2} / {@code
 *     off}), see dynamo.md §1.3
 * @param mediaDecoder whether the frontend downloads/decodes images, with limits
 * @param routingMode {@code precise} (KV events) or {@code approximate}
 * @param loraAdapters LoRA adapters served on top of the model
 * @param contextLength maximum context length in tokens, when known
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
  "schema_version",
  "name",
  "aliases",
  "backend",
  "hf",
  "processor_family",
  "processor_family_source",
  "kv_block_size",
  "mm_scheme",
  "media_decoder",
  "routing_mode",
  "lora_adapters",
  "context_length"
})
public record ModelCard(
    Integer schemaVersion,
    String name,
    List<String> aliases,
    BackendKind backend,
    HfSource hf,
    String processorFamily,
    String processorFamilySource,
    Integer kvBlockSize,
    MmScheme mmScheme,
    MediaDecoder mediaDecoder,
    RoutingMode routingMode,
    List<LoraAdapter> loraAdapters,
    Integer contextLength) {

  /** The schema version this code writes and understands. */
  public static final int SCHEMA_VERSION = 1;

  /** Family id meaning "text-only routing: images are not expanded". */
  public static final String FAMILY_NONE = "none";

  /** Default KV block size (vLLM's default on GPUs). */
  public static final int DEFAULT_BLOCK_SIZE = 16;

  public ModelCard {
    aliases = aliases == null ? null : List.copyOf(aliases);
    loraAdapters = loraAdapters == null ? null : List.copyOf(loraAdapters);
  }

  /** A minimal card with defaults for everything but name, backend and block size. */
  public static ModelCard of(String name, BackendKind backend, int kvBlockSize) {
    return new ModelCard(
            null, name, null, backend, null, null, null, kvBlockSize, null, null, null, null, null)
        .withDefaults();
  }

  /**
   * This card with unset optional fields filled: schema version 1, no aliases, gen2 scheme (the
   * current Dynamo default, dynamo.md "Recommendations" 2), media decoding off, precise routing.
   */
  public ModelCard withDefaults() {
    return new ModelCard(
        schemaVersion == null ? SCHEMA_VERSION : schemaVersion,
        name,
        aliases == null ? List.of() : aliases,
        backend,
        hf,
        processorFamily,
        processorFamilySource,
        kvBlockSize == null ? DEFAULT_BLOCK_SIZE : kvBlockSize,
        mmScheme == null ? MmScheme.GEN2 : mmScheme,
        mediaDecoder == null ? MediaDecoder.disabled() : mediaDecoder.withDefaults(),
        routingMode == null ? RoutingMode.PRECISE : routingMode,
        loraAdapters == null ? List.of() : loraAdapters,
        contextLength);
  }

  /** A copy with another processor family and its source. */
  public ModelCard withProcessorFamily(String family, String source) {
    return new ModelCard(
        schemaVersion,
        name,
        aliases,
        backend,
        hf,
        family,
        source,
        kvBlockSize,
        mmScheme,
        mediaDecoder,
        routingMode,
        loraAdapters,
        contextLength);
  }

  /** A copy with another block size. */
  public ModelCard withKvBlockSize(int blockSize) {
    return new ModelCard(
        schemaVersion,
        name,
        aliases,
        backend,
        hf,
        processorFamily,
        processorFamilySource,
        blockSize,
        mmScheme,
        mediaDecoder,
        routingMode,
        loraAdapters,
        contextLength);
  }

  /** A copy with other aliases. */
  public ModelCard withAliases(List<String> newAliases) {
    return new ModelCard(
        schemaVersion,
        name,
        newAliases,
        backend,
        hf,
        processorFamily,
        processorFamilySource,
        kvBlockSize,
        mmScheme,
        mediaDecoder,
        routingMode,
        loraAdapters,
        contextLength);
  }

  /** True when {@code nameOrAlias} is this card's name or one of its aliases (exact match). */
  public boolean answersTo(String nameOrAlias) {
    return name != null && name.equals(nameOrAlias)
        || aliases != null && aliases.contains(nameOrAlias);
  }

  /** True when the router expands images for this model (a family is known and mm is on). */
  @JsonIgnore
  public boolean multimodal() {
    return processorFamily != null
        && !FAMILY_NONE.equals(processorFamily.toLowerCase(Locale.ROOT))
        && mmScheme != MmScheme.OFF;
  }
}
