package io.sightline.router.api;

/**
 * Ends a routed request.
 *
 * @param routingId the {@link RouteDecision#routingId()}
 * @param cachedTokens prompt tokens the worker reported as cached ({@code
 *     usage.prompt_tokens_details.cached_tokens}), or {@code null} when unknown
 */
public record ReleaseRequest(String routingId, Integer cachedTokens) {}
