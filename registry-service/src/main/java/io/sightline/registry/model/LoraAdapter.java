package io.sightline.registry.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * A LoRA adapter served on top of the base model. {@code name} is what clients put in {@code
 * model}; {@code path} is where the engine loads it from (informational for the registry). The
 * router salts block hashes with the adapter name (see dynamo.md §1), so requests for different
 * adapters never share cache.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LoraAdapter(String name, String path) {}
