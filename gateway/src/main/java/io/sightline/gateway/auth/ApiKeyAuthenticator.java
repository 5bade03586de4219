package io.sightline.gateway.auth;

import io.sightline.gateway.error.OpenAiException;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * Checks the {@code Authorization: Bearer <key>} header (also {@code api-key:} as Azure-style
 * clients send it).
 *
 * <p>The presented key is hashed and compared against <em>every</em> stored digest with {@link
 * MessageDigest#isEqual} (constant time in the digest length), without stopping at the first match,
 * so response timing says nothing about which stored key was close.
 */
public final class ApiKeyAuthenticator {
  private final boolean enabled;
  private final ApiKeyHasher hasher;
  private final ApiKeyStore store;
  private final long defaultRpm;
  private final long defaultTpm;

  public ApiKeyAuthenticator(
      boolean enabled, ApiKeyHasher hasher, ApiKeyStore store, long defaultRpm, long defaultTpm) {
    this.enabled = enabled;
    this.hasher = hasher;
    this.store = store;
    this.defaultRpm = defaultRpm;
    this.defaultTpm = defaultTpm;
  }

  /**
   * The caller for these headers.
   *
   * @throws OpenAiException 401 when auth is on and the key is missing or unknown
   */
  public ApiKeyPrincipal authenticate(String authorization, String apiKeyHeader) {
    if (!enabled) {
      return ApiKeyPrincipal.anonymous(defaultRpm, defaultTpm);
    }
    String key = bearer(authorization).or(() -> nonBlank(apiKeyHeader)).orElse(null);
    if (key == null) {
      throw OpenAiException.unauthorized(
          "You didn't provide an API key. Send it as 'Authorization: Bearer <key>'.");
    }
    byte[] digest = hasher.digest(key);
    StoredApiKey match = null;
    for (StoredApiKey stored : store.keys()) {
      if (MessageDigest.isEqual(digest, stored.digest()) && match == null) {
        match = stored;
      }
    }
    if (match == null) {
      throw OpenAiException.unauthorized("Incorrect API key provided.");
    }
    return new ApiKeyPrincipal(
        match.name(),
        match.allowedModels(),
        match.requestsPerMinute() > 0 ? match.requestsPerMinute() : defaultRpm,
        match.tokensPerMinute() > 0 ? match.tokensPerMinute() : defaultTpm);
  }

  /**
   * @throws OpenAiException 403 when the key's allowlist does not include {@code model}
   */
  public void checkModel(ApiKeyPrincipal principal, String model) {
    if (!principal.mayUse(model)) {
      throw OpenAiException.forbidden("This API key may not use the model '" + model + "'.");
    }
  }

  private static Optional<String> bearer(String header) {
    if (header == null) {
      return Optional.empty();
    }
    String h = header.strip();
    if (h.length() > 7 && h.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return nonBlank(h.substring(7));
    }
    return Optional.empty();
  }

  private static Optional<String> nonBlank(String s) {
    return s == null || s.isBlank() ? Optional.empty() : Optional.of(s.strip());
  }
}
