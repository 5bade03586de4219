package io.sightline.gateway.error;

/**
 * A failure that reaches the client as an OpenAI-shaped error body ({@code
 * {"error":{"message","type","param","code"}}}) with a given HTTP status.
 *
 * <p>Every failure the gateway knows about is turned into one of these where it happens, so the
 * global handler never has to guess a status from an exception class, and no stack trace or
 * internal detail leaks to a client (see ../shared/reference/ecosystem.md §5). The factory methods
 * fix the pairing of status, OpenAI {@code type} and {@code code} that the OpenAI SDKs map to their
 * typed exceptions (400 BadRequest, 401 Authentication, 403 PermissionDenied, 404 NotFound, 413,
 * 429 RateLimit, 5xx InternalServer).
 */
public class OpenAiException extends RuntimeException {
  private final int status;
  private final String type;
  private final String code;
  private final String param;

  public OpenAiException(int status, String type, String code, String param, String message) {
    super(message, null, false, false);
    this.status = status;
    this.type = type;
    this.code = code;
    this.param = param;
  }

  /** 400: the request itself is wrong (bad JSON, bad field, bad image). */
  public static OpenAiException badRequest(String code, String param, String message) {
    return new OpenAiException(400, "invalid_request_error", code, param, message);
  }

  /** 401: no API key, or a key we do not know. */
  public static OpenAiException unauthorized(String message) {
    return new OpenAiException(401, "invalid_request_error", "invalid_api_key", null, message);
  }

  /** 403: the key is valid but may not use this model. */
  public static OpenAiException forbidden(String message) {
    return new OpenAiException(403, "permission_error", "model_not_allowed", "model", message);
  }

  /** 404: the model is not served by this fleet. */
  public static OpenAiException modelNotFound(String model) {
    return new OpenAiException(
        404,
        "invalid_request_error",
        "model_not_found",
        "model",
        "The model '" + model + "' does not exist or is not served here.");
  }

  /** 404 for a path we do not serve. */
  public static OpenAiException notFound(String message) {
    return new OpenAiException(404, "invalid_request_error", "not_found", null, message);
  }

  /** 413: the body is over the configured cap. */
  public static OpenAiException tooLarge(long limit) {
    return new OpenAiException(
        413,
        "invalid_request_error",
        "request_too_large",
        null,
        limit < 0
            ? "Request body is too large."
            : "Request body exceeds the limit of " + limit + " bytes.");
  }

  /** 429: a per-key quota is exhausted. */
  public static OpenAiException rateLimited(String message) {
    return new OpenAiException(429, "rate_limit_error", "rate_limit_exceeded", null, message);
  }

  /** 502: the worker answered with garbage or broke the connection. */
  public static OpenAiException badGateway(String message) {
    return new OpenAiException(502, "api_error", "upstream_error", null, message);
  }

  /** 503: no worker can take the request (none registered, all circuit breakers open). */
  public static OpenAiException unavailable(String message) {
    return new OpenAiException(503, "api_error", "upstream_unavailable", null, message);
  }

  /** 504: the worker did not answer in time. */
  public static OpenAiException timeout(String message) {
    return new OpenAiException(504, "api_error", "upstream_timeout", null, message);
  }

  public int status() {
    return status;
  }

  public String type() {
    return type;
  }

  public String code() {
    return code;
  }

  public String param() {
    return param;
  }
}
