package io.sightline.registry.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/**
 * A gateway API key as the registry stores it: never the key itself, only its digest, plus what the
 * key may do. The digest is the gateway's {@code ApiKeyHasher} output (64 lower-case hex digits:
 * SHA-256 of the key, or HMAC-SHA-256 with the gateway's pepper), so a leaked registry reveals no
 * usable key. Keys are high-entropy random strings, so a fast hash suffices (no password KDF).
 *
 * @param schemaVersion schema version, 1
 * @param name unique name of the key (team, service); shown in logs and quotas, never secret
 * @param hash 64 hex digits, the key's digest
 * @param allowedModels model names/aliases the key may call; empty = all
 * @param requestsPerMinute request limit, 0 = unlimited
 * @param tokensPerMinute token limit, 0 = unlimited
 * @param enabled false to revoke without deleting
 * @param description free text for operators
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
  "schema_version",
  "name",
  "hash",
  "allowed_models",
  "requests_per_minute",
  "tokens_per_minute",
  "enabled",
  "description"
})
public record ApiKey(
    Integer schemaVersion,
    String name,
    String hash,
    List<String> allowedModels,
    Long requestsPerMinute,
    Long tokensPerMinute,
    Boolean enabled,
    String description) {

  public ApiKey {
    allowedModels = allowedModels == null ? null : List.copyOf(allowedModels);
  }

  /** This key with defaults: schema 1, all models, no limits, enabled, hash lower-cased. */
  public ApiKey withDefaults() {
    return new ApiKey(
        schemaVersion == null ? ModelCard.SCHEMA_VERSION : schemaVersion,
        name,
        hash == null ? null : hash.strip().toLowerCase(java.util.Locale.ROOT),
        allowedModels == null ? List.of() : allowedModels,
        requestsPerMinute == null ? 0L : requestsPerMinute,
        tokensPerMinute == null ? 0L : tokensPerMinute,
        enabled == null || enabled,
        description);
  }

  /** True unless explicitly disabled. */
  @JsonIgnore
  public boolean isEnabled() {
    return enabled == null || enabled;
  }
}
