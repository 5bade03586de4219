package io.sightline.router.engine;

/**
 * A request turned into what the index understands.
 *
 * @param localHashes local block hashes of the routing tokens (full blocks)
 * @param routingTokens number of routing tokens (images expanded)
 * @param imageTokens of those, tokens from images
 * @param mode {@code precise}, {@code approximate} or {@code text-only}
 * @param fallbackReason why it is degraded, or {@code null}
 */
record PreparedRequest(
    long[] localHashes, int routingTokens, int imageTokens, String mode, String fallbackReason) {}
