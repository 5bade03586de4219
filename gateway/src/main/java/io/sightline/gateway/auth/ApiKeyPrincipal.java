package io.sightline.gateway.auth;

import java.util.Set;

/**
 * An authenticated caller.
 *
 * @param name the key's non-secret name (quota bucket, logs)
 * @param allowedModels models the key may call; empty = all
 * @param requestsPerMinute request quota, 0 = unlimited
 * @param tokensPerMinute token quota, 0 = unlimited
 */
public record ApiKeyPrincipal(
    String name, Set<String> allowedModels, long requestsPerMinute, long tokensPerMinute) {

  /** The caller when auth is disabled: one shared bucket, every model. */
  public static ApiKeyPrincipal anonymous(long requestsPerMinute, long tokensPerMinute) {
    return new ApiKeyPrincipal("anonymous", Set.of(), requestsPerMinute, tokensPerMinute);
  }

  public boolean mayUse(String model) {
    return allowedModels.isEmpty() || allowedModels.contains(model);
  }
}
