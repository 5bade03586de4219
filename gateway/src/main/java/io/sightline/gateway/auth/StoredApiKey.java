package io.sightline.gateway.auth;

import java.util.Set;

/**
 * A key as a store holds it: its digest (never the key) and what it may do.
 *
 * @param digest {@link ApiKeyHasher#digest} of the key
 */
public record StoredApiKey(
    String name,
    byte[] digest,
    Set<String> allowedModels,
    long requestsPerMinute,
    long tokensPerMinute) {}
