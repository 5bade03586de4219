package io.sightline.router.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * A routing question.
 *
 * @param model served model name (the {@code model} field of the OpenAI body)
 * @param body the OpenAI chat-completions or completions request body, unchanged
 * @param images the request's images in order of appearance, resolved by the gateway; may be empty
 * @param chat {@code true} for {@code /v1/chat/completions}, {@code false} for {@code
 *     /v1/completions}
 */
public record RouteRequest(String model, JsonNode body, List<ResolvedImage> images, boolean chat) {
  public RouteRequest {
    images = images == null ? List.of() : List.copyOf(images);
  }
}
