package io.sightline.routing.prompt;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The {@code prompt} of a {@code /v1/completions} body: either text or token ids. OpenAI allows a
 * string, an array of ids, or a batch (array of strings / arrays of ids); a batch of one is
 * unwrapped, larger batches are rejected because one routing decision covers one prompt.
 *
 * @param text the prompt text, or null when ids were given
 * @param tokenIds the prompt ids, or null when text was given
 */
public record CompletionPrompt(String text, int[] tokenIds) {

  /** Reads {@code request.prompt}. */
  public static CompletionPrompt of(JsonNode request) throws PromptEncodingException {
    if (request == null || !request.isObject()) {
      throw invalid("request body must be a JSON object");
    }
    JsonNode prompt = request.get("prompt");
    if (prompt == null || prompt.isNull()) {
      throw invalid("'prompt' is required");
    }
    if (prompt.isTextual()) {
      return new CompletionPrompt(prompt.asText(), null);
    }
    if (!prompt.isArray()) {
      throw invalid("'prompt' must be a string or an array");
    }
    if (prompt.isEmpty()) {
      throw invalid("'prompt' must not be empty");
    }
    JsonNode first = prompt.get(0);
    if (first.isTextual() || first.isArray()) {
      if (prompt.size() != 1) {
        throw invalid("batched prompts (" + prompt.size() + ") cannot be routed as one request");
      }
      return first.isTextual()
          ? new CompletionPrompt(first.asText(), null)
          : new CompletionPrompt(null, ids(first));
    }
    return new CompletionPrompt(null, ids(prompt));
  }

  private static int[] ids(JsonNode array) throws PromptEncodingException {
    if (array.isEmpty()) {
      throw invalid("'prompt' token array must not be empty");
    }
    int[] ids = new int[array.size()];
    for (int i = 0; i < ids.length; i++) {
      JsonNode id = array.get(i);
      if (!id.canConvertToInt() || !id.isIntegralNumber() || id.intValue() < 0) {
        throw invalid("'prompt' token ids must be non-negative integers (index " + i + ")");
      }
      ids[i] = id.intValue();
    }
    return ids;
  }

  private static PromptEncodingException invalid(String message) {
    return new PromptEncodingException(PromptEncodingException.Kind.INVALID_REQUEST, message);
  }
}
