package io.sightline.gateway.error;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;

/**
 * Renders {@link OpenAiException}s as OpenAI error JSON, both as a response body and as the
 * server-sent event that ends a stream whose worker died mid-way.
 */
public final class OpenAiErrors {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private OpenAiErrors() {}

  /** {@code {"error":{"message","type","param","code"}}}. */
  public static ObjectNode body(OpenAiException e) {
    ObjectNode root = MAPPER.createObjectNode();
    ObjectNode error = root.putObject("error");
    error.put("message", e.getMessage() == null ? "error" : e.getMessage());
    error.put("type", e.type());
    if (e.param() == null) {
      error.putNull("param");
    } else {
      error.put("param", e.param());
    }
    if (e.code() == null) {
      error.putNull("code");
    } else {
      error.put("code", e.code());
    }
    return root;
  }

  /** The error body as UTF-8 JSON bytes. */
  public static byte[] bytes(OpenAiException e) {
    return body(e).toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * An SSE frame carrying the error, followed by {@code [DONE]}: what the OpenAI API itself sends
   * when a stream fails after it started (clients see an {@code error} object in a data event).
   */
  public static byte[] sseEvent(OpenAiException e) {
    return ("data: " + body(e) + "\n\ndata: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
  }
}
