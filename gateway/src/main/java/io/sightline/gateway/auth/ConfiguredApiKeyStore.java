package io.sightline.gateway.auth;

import io.sightline.gateway.config.GatewayProperties;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/** Keys from {@code sightline.gateway.auth.keys}, hashes decoded once at start-up. */
public final class ConfiguredApiKeyStore implements ApiKeyStore {
  private final List<StoredApiKey> keys;

  public ConfiguredApiKeyStore(List<GatewayProperties.Key> configured) {
    this.keys =
        configured.stream()
            .map(
                k -> {
                  byte[] digest;
                  try {
                    digest = HexFormat.of().parseHex(k.getHash().strip().toLowerCase());
                  } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(
                        "sightline.gateway.auth.keys '" + k.getName() + "': hash is not hex", e);
                  }
                  if (digest.length != 32) {
                    throw new IllegalArgumentException(
                        "sightline.gateway.auth.keys '"
                            + k.getName()
                            + "': hash must be 64 hex digits (SHA-256)");
                  }
                  return new StoredApiKey(
                      k.getName(),
                      digest,
                      Set.copyOf(k.getModels()),
                      k.getRequestsPerMinute(),
                      k.getTokensPerMinute());
                })
            .toList();
  }

  @Override
  public List<StoredApiKey> keys() {
    return keys;
  }
}
