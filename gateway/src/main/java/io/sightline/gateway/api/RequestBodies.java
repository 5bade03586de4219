package io.sightline.gateway.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.gateway.error.OpenAiException;
import java.io.ByteArrayOutputStream;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.server.reactive.ServerHttpRequest;
import reactor.core.publisher.Mono;

/**
 * Reads a request body under a byte cap and parses it once. The cap is checked against {@code
 * Content-Length} up front and against the bytes actually received while reading, so a chunked
 * upload (no length) cannot get past it either; the body is released buffer by buffer.
 */
public final class RequestBodies {
  private RequestBodies() {}

  /** The body bytes; 413 once more than {@code maxBytes} arrive. */
  public static Mono<byte[]> read(ServerHttpRequest request, long maxBytes) {
    long declared = request.getHeaders().getContentLength();
    if (declared > maxBytes) {
      return Mono.error(OpenAiException.tooLarge(maxBytes));
    }
    return request
        .getBody()
        .reduce(
            new ByteArrayOutputStream(declared > 0 ? (int) declared : 1024),
            (out, buffer) -> {
              try {
                int n = buffer.readableByteCount();
                if (out.size() + (long) n > maxBytes) {
                  throw OpenAiException.tooLarge(maxBytes);
                }
                byte[] chunk = new byte[n];
                buffer.read(chunk);
                out.write(chunk, 0, n);
                return out;
              } finally {
                DataBufferUtils.release(buffer);
              }
            })
        .map(ByteArrayOutputStream::toByteArray)
        .defaultIfEmpty(new byte[0]);
  }

  /** Parses a JSON object body; 400 for anything else. */
  public static ObjectNode parseObject(ObjectMapper mapper, byte[] body) {
    if (body.length == 0) {
      throw OpenAiException.badRequest("invalid_json", null, "The request body is empty.");
    }
    JsonNode node;
    try {
      node = mapper.readTree(body);
    } catch (JsonProcessingException e) {
      throw OpenAiException.badRequest(
          "invalid_json",
          null,
          "The request body is not valid JSON: " + e.getOriginalMessage() + ".");
    } catch (java.io.IOException e) {
      throw OpenAiException.badRequest("invalid_json", null, "The request body is not valid JSON.");
    }
    if (node == null || !node.isObject()) {
      throw OpenAiException.badRequest(
          "invalid_json", null, "The request body must be a JSON object.");
    }
    return (ObjectNode) node;
  }
}
