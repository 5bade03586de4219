package io.sightline.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Token usage a worker reported ({@code usage} of an OpenAI answer or of the last stream chunk).
 *
 * @param cachedTokens {@code usage.prompt_tokens_details.cached_tokens}, or null when absent
 */
public record Usage(long promptTokens, long totalTokens, Integer cachedTokens) {

  /** Reads {@code node.usage}; null when there is none. */
  public static Usage of(JsonNode node) {
    JsonNode u = node == null ? null : node.get("usage");
    if (u == null || !u.isObject()) {
      return null;
    }
    JsonNode cached = u.path("prompt_tokens_details").get("cached_tokens");
    return new Usage(
        u.path("prompt_tokens").asLong(0),
        u.path("total_tokens").asLong(0),
        cached != null && cached.isNumber() ? cached.asInt() : null);
  }
}
