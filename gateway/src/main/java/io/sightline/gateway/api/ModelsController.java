package io.sightline.gateway.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.gateway.auth.ApiKeyAuthenticator;
import io.sightline.gateway.auth.ApiKeyPrincipal;
import io.sightline.gateway.catalog.ModelCatalog;
import io.sightline.gateway.error.OpenAiErrorWebExceptionHandler;
import io.sightline.gateway.error.OpenAiException;
import java.nio.charset.StandardCharsets;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * {@code GET /v1/models} and {@code GET /v1/models/{id}} from the registry, in OpenAI's list shape,
 * limited to the models the caller's key may use.
 */
@RestController
public class ModelsController {
  private final ModelCatalog catalog;
  private final ApiKeyAuthenticator auth;
  private final ObjectMapper mapper;

  public ModelsController(ModelCatalog catalog, ApiKeyAuthenticator auth, ObjectMapper mapper) {
    this.catalog = catalog;
    this.auth = auth;
    this.mapper = mapper;
  }

  @GetMapping("/v1/models")
  public Mono<Void> list(ServerWebExchange exchange) {
    return respond(
        exchange,
        principal -> {
          ObjectNode root = mapper.createObjectNode();
          root.put("object", "list");
          ArrayNode data = root.putArray("data");
          for (ModelCatalog.ServedModel m : catalog.models()) {
            if (principal.mayUse(m.id())) {
              data.add(model(m));
            }
          }
          return root;
        });
  }

  @GetMapping("/v1/models/{id}")
  public Mono<Void> one(ServerWebExchange exchange, @PathVariable("id") String id) {
    return respond(
        exchange,
        principal -> {
          ModelCatalog.ServedModel m =
              catalog
                  .find(id)
                  .filter(x -> principal.mayUse(x.id()))
                  .orElseThrow(() -> OpenAiException.modelNotFound(id));
          return model(m);
        });
  }

  private ObjectNode model(ModelCatalog.ServedModel m) {
    ObjectNode n = mapper.createObjectNode();
    n.put("id", m.id());
    n.put("object", "model");
    n.put("created", m.createdEpochSeconds());
    n.put("owned_by", "sightline");
    return n;
  }

  private Mono<Void> respond(
      ServerWebExchange exchange, java.util.function.Function<ApiKeyPrincipal, ObjectNode> body) {
    ServerHttpResponse response = exchange.getResponse();
    try {
      HttpHeaders h = exchange.getRequest().getHeaders();
      ApiKeyPrincipal principal =
          auth.authenticate(h.getFirst(HttpHeaders.AUTHORIZATION), h.getFirst("api-key"));
      byte[] bytes = body.apply(principal).toString().getBytes(StandardCharsets.UTF_8);
      response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
      response.getHeaders().setContentLength(bytes.length);
      return response.writeWith(Mono.just(response.bufferFactory().wrap(bytes)));
    } catch (OpenAiException e) {
      return OpenAiErrorWebExceptionHandler.write(response, e);
    }
  }
}
