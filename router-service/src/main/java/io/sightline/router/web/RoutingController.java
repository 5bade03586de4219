package io.sightline.router.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.router.api.ReleaseRequest;
import io.sightline.router.api.RouteDecision;
import io.sightline.router.api.RouteRequest;
import io.sightline.router.api.RouterJson;
import io.sightline.router.api.RoutingException;
import io.sightline.router.api.RoutingService;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * HTTP face of {@link RoutingService}: {@code POST /v1/route}, {@code /v1/explain}, {@code
 * /v1/release}.
 *
 * <p>Bodies are taken as raw bytes and parsed with Sightline's Jackson 2 mapper ({@link
 * RouterJson}) rather than Spring Boot 4's Jackson 3 codecs, so the wire form is exactly the API
 * records' and the gateway's {@link HttpRoutingService} reads it with the same mapper. Errors are
 * {@code {"error":{"code":…,"message":…}}} with 400 (malformed body), 404/503 (from {@link
 * RoutingException}) or 500 (a bug; logged, message generic) — never a stack trace. The routing
 * path is in-memory (no I/O), so it runs on the calling thread.
 */
@RestController
public class RoutingController {
  private static final Logger log = LoggerFactory.getLogger(RoutingController.class);
  private static final ObjectMapper JSON = RouterJson.mapper();

  private final RoutingService routing;

  public RoutingController(RoutingService routing) {
    this.routing = routing;
  }

  @PostMapping(path = "/v1/route", produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<String> route(@RequestBody(required = false) byte[] body) {
    return handle(body, RouteRequest.class, r -> write(routing.route(validate(r))));
  }

  @PostMapping(path = "/v1/explain", produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<String> explain(@RequestBody(required = false) byte[] body) {
    return handle(body, RouteRequest.class, r -> write(routing.explain(validate(r))));
  }

  @PostMapping(path = "/v1/release", produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<String> release(@RequestBody(required = false) byte[] body) {
    return handle(
        body,
        ReleaseRequest.class,
        r -> {
          if (r.routingId() == null || r.routingId().isBlank()) {
            throw new RoutingException(400, "invalid_request", "routingId is required");
          }
          routing.release(r);
          return "{\"released\":true}";
        });
  }

  private static RouteRequest validate(RouteRequest r) {
    if (r.model() == null || r.model().isBlank()) {
      throw new RoutingException(400, "invalid_request", "model is required");
    }
    if (r.body() == null || !r.body().isObject()) {
      throw new RoutingException(400, "invalid_request", "body must be a JSON object");
    }
    return r;
  }

  private static String write(RouteDecision decision) {
    try {
      return JSON.writeValueAsString(decision);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise decision", e);
    }
  }

  private <T> ResponseEntity<String> handle(
      byte[] body, Class<T> type, Function<T, String> action) {
    if (body == null || body.length == 0) {
      return error(400, "invalid_request", "request body is required");
    }
    T request;
    try {
      JsonNode tree = JSON.readTree(body);
      if (type == RouteRequest.class
          && tree instanceof ObjectNode o
          && !o.has("chat")
          && o.path("body").isObject()) {
        // "chat" omitted: a body with messages is a chat request, anything else a completion
        o.put("chat", o.path("body").has("messages"));
      }
      request = JSON.treeToValue(tree, type);
    } catch (java.io.IOException e) {
      return error(400, "invalid_json", "malformed " + type.getSimpleName() + ": " + brief(e));
    }
    if (request == null) {
      return error(400, "invalid_request", "request body is required");
    }
    try {
      return ResponseEntity.ok()
          .contentType(MediaType.APPLICATION_JSON)
          .body(action.apply(request));
    } catch (RoutingException e) {
      return error(e.status(), e.code(), e.getMessage());
    } catch (RuntimeException e) {
      log.error("routing failed", e);
      return error(500, "internal_error", "routing failed; see router logs");
    }
  }

  private static String brief(Exception e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int nl = m.indexOf('\n');
    return nl > 0 ? m.substring(0, nl) : m;
  }

  static ResponseEntity<String> error(int status, String code, String message) {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode err = root.putObject("error");
    err.put("code", code);
    err.put("message", message);
    HttpStatus s = HttpStatus.resolve(status);
    return ResponseEntity.status(s == null ? HttpStatus.INTERNAL_SERVER_ERROR : s)
        .contentType(MediaType.APPLICATION_JSON)
        .body(root.toString());
  }

  /** Parses an error body written by {@link #error}; {@code null} when it is not one. */
  static JsonNode parseError(String body) {
    try {
      JsonNode n = JSON.readTree(body);
      return n != null && n.path("error").isObject() ? n.get("error") : null;
    } catch (JsonProcessingException e) {
      return null;
    }
  }
}
