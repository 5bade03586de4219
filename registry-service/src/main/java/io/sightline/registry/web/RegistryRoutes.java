package io.sightline.registry.web;

import static org.springframework.web.reactive.function.server.RequestPredicates.DELETE;
import static org.springframework.web.reactive.function.server.RequestPredicates.GET;
import static org.springframework.web.reactive.function.server.RequestPredicates.POST;
import static org.springframework.web.reactive.function.server.RequestPredicates.PUT;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * The registry's HTTP routes as a functional {@link RouterFunction}, so embedding apps (gateway,
 * standalone) get them from auto-configuration without component scanning. Worker routes are
 * declared before the model catch-all because model names may contain slashes ({@code
 * Qwen/Qwen2-VL-7B-Instruct}) and are captured with {@code {*name}}.
 */
public final class RegistryRoutes {
  private RegistryRoutes() {}

  /** The routes without authentication (an embedding app protects them itself). */
  public static RouterFunction<ServerResponse> routes(RegistryHandler h) {
    return routes(h, null);
  }

  /**
   * The routes; when {@code adminToken} is non-blank every request must carry {@code Authorization:
   * Bearer <adminToken>} (compared in constant time), else 401.
   */
  public static RouterFunction<ServerResponse> routes(RegistryHandler h, String adminToken) {
    byte[] token =
        adminToken == null || adminToken.isBlank()
            ? null
            : adminToken.getBytes(StandardCharsets.UTF_8);
    return RouterFunctions.route()
        .GET("/v1/admin/snapshot", h::snapshot)
        .GET("/v1/admin/watch", h::watch)
        .GET("/v1/admin/schema/{name}", h::schema)
        .route(GET("/v1/admin/workers"), h::listWorkers)
        .route(POST("/v1/admin/workers"), h::createWorker)
        .route(POST("/v1/admin/workers/{id}/heartbeat"), h::heartbeat)
        .route(PUT("/v1/admin/workers/{id}/state"), h::setState)
        .route(GET("/v1/admin/workers/{id}"), h::getWorker)
        .route(PUT("/v1/admin/workers/{id}"), h::putWorker)
        .route(DELETE("/v1/admin/workers/{id}"), h::deleteWorker)
        .route(GET("/v1/admin/api-keys"), h::listApiKeys)
        .route(POST("/v1/admin/api-keys"), h::createApiKey)
        .route(GET("/v1/admin/api-keys/{name}"), h::getApiKey)
        .route(PUT("/v1/admin/api-keys/{name}"), h::putApiKey)
        .route(DELETE("/v1/admin/api-keys/{name}"), h::deleteApiKey)
        .route(GET("/v1/admin/models"), h::listModels)
        .route(POST("/v1/admin/models"), h::createModel)
        .route(GET("/v1/admin/models/{*name}"), h::getModel)
        .route(PUT("/v1/admin/models/{*name}"), h::putModel)
        .route(DELETE("/v1/admin/models/{*name}"), h::deleteModel)
        .filter(
            (req, next) -> {
              if (token == null || authorized(req.headers().firstHeader("Authorization"), token)) {
                return next.handle(req);
              }
              ApiError e =
                  new ApiError(
                      HttpStatus.UNAUTHORIZED,
                      "unauthorized",
                      "send Authorization: Bearer <sightline.registry.admin-token>");
              return ServerResponse.status(HttpStatus.UNAUTHORIZED)
                  .header("WWW-Authenticate", "Bearer")
                  .contentType(MediaType.APPLICATION_JSON)
                  .bodyValue(e.body());
            })
        // Mono.defer also catches what a handler throws before returning its Mono
        .filter(
            (req, next) -> Mono.defer(() -> next.handle(req)).onErrorResume(RegistryHandler::error))
        .build();
  }

  private static boolean authorized(String header, byte[] token) {
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    byte[] given = header.substring(7).strip().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(given, token);
  }
}
