package io.sightline.sim.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Shared Jackson 2 mapper and the vLLM-shaped error body. */
public final class Json {
  public static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  /**
   * vLLM's {@code ErrorResponse}: {@code {"error": {"message", "type", "param", "code"}}} (TRT-LLM
   * answers with the same shape).
   */
  public static ObjectNode error(int status, String type, String message, String param) {
    ObjectNode root = MAPPER.createObjectNode();
    ObjectNode error = root.putObject("error");
    error.put("message", message);
    error.put("type", type);
    if (param == null) {
      error.putNull("param");
    } else {
      error.put("param", param);
    }
    error.put("code", status);
    return root;
  }
}
