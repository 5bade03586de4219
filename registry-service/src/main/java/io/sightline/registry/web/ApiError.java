package io.sightline.registry.web;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.registry.model.RegistryJson;
import io.sightline.registry.service.FieldError;
import java.util.List;
import org.springframework.http.HttpStatus;

/**
 * An error answer of the admin API:
 *
 * <pre>{"error":{"status":400,"code":"validation_failed","message":"…",
 *   "fields":[{"path":"kv_block_size","message":"…"}],"reasons":["…"]}}</pre>
 */
final class ApiError extends RuntimeException {
  private final HttpStatus status;
  private final String code;
  private final List<FieldError> fields;
  private final List<String> reasons;

  ApiError(HttpStatus status, String code, String message) {
    this(status, code, message, List.of(), List.of());
  }

  ApiError(
      HttpStatus status,
      String code,
      String message,
      List<FieldError> fields,
      List<String> reasons) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
    this.reasons = reasons;
  }

  HttpStatus status() {
    return status;
  }

  String body() {
    ObjectNode root = RegistryJson.mapper().createObjectNode();
    ObjectNode e = root.putObject("error");
    e.put("status", status.value());
    e.put("code", code);
    e.put("message", getMessage());
    if (!fields.isEmpty()) {
      ArrayNode a = e.putArray("fields");
      for (FieldError f : fields) {
        a.addObject().put("path", f.path()).put("message", f.message());
      }
    }
    if (!reasons.isEmpty()) {
      ArrayNode a = e.putArray("reasons");
      reasons.forEach(a::add);
    }
    return root.toString();
  }
}
