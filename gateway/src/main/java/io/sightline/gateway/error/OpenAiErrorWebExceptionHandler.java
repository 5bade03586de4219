package io.sightline.gateway.error;

import java.util.List;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * Last line of defence for the OpenAI surface: whatever escapes a handler is written as an OpenAI
 * error body with a sensible status, never a stack trace or Spring's default error page. Ordered
 * before Boot's {@code DefaultErrorWebExceptionHandler} (order -1).
 *
 * <p>Unknown exceptions become a 500 with a fixed message; their detail goes to the log only.
 * Non-OpenAI paths served by the same process (registry admin, router API, actuator) are left
 * alone.
 */
public class OpenAiErrorWebExceptionHandler implements WebExceptionHandler, Ordered {
  private static final Logger log = LoggerFactory.getLogger(OpenAiErrorWebExceptionHandler.class);

  @Override
  public int getOrder() {
    return -2;
  }

  /**
   * Paths that share the server in the one-process deployment but are not the OpenAI surface (the
   * registry's admin API, the router's API, actuator): their errors are left to their own handlers
   * or Spring's default.
   */
  private static final List<String> NOT_OPENAI =
      List.of("/v1/admin", "/v1/route", "/v1/explain", "/v1/release", "/actuator");

  @Override
  public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
    ServerHttpResponse response = exchange.getResponse();
    String path = exchange.getRequest().getPath().value();
    if (response.isCommitted() || NOT_OPENAI.stream().anyMatch(path::startsWith)) {
      return Mono.error(ex);
    }
    OpenAiException error = translate(ex);
    if (error.status() >= 500) {
      log.warn(
          "{} {} -> {}: {}",
          exchange.getRequest().getMethod(),
          exchange.getRequest().getPath(),
          error.status(),
          ex.toString());
    }
    return write(response, error);
  }

  /** Writes {@code error} as the response (status, JSON body). */
  public static Mono<Void> write(ServerHttpResponse response, OpenAiException error) {
    response.setStatusCode(HttpStatusCode.valueOf(error.status()));
    response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
    byte[] bytes = OpenAiErrors.bytes(error);
    response.getHeaders().setContentLength(bytes.length);
    return response.writeWith(Mono.just(response.bufferFactory().wrap(bytes)));
  }

  /** Maps any throwable to the OpenAI error it should be reported as. */
  public static OpenAiException translate(Throwable ex) {
    Throwable t = ex;
    for (int i = 0; i < 5 && t != null; i++) {
      if (t instanceof OpenAiException e) {
        return e;
      }
      if (t instanceof DataBufferLimitException) {
        return OpenAiException.tooLarge(-1);
      }
      if (t instanceof TimeoutException) {
        return OpenAiException.timeout("The worker did not answer in time.");
      }
      t = t.getCause();
    }
    if (ex instanceof ResponseStatusException rse) {
      int status = rse.getStatusCode().value();
      String reason = rse.getReason() != null ? rse.getReason() : reasonOf(status);
      return switch (status) {
        case 404 -> OpenAiException.notFound("Unknown path.");
        case 413 -> OpenAiException.tooLarge(-1);
        default ->
            new OpenAiException(
                status, status >= 500 ? "api_error" : "invalid_request_error", null, null, reason);
      };
    }
    return new OpenAiException(500, "api_error", "internal_error", null, "Internal error.");
  }

  private static String reasonOf(int status) {
    HttpStatus s = HttpStatus.resolve(status);
    return s == null ? "Error " + status : s.getReasonPhrase();
  }
}
