package io.sightline.sim.prompt;

/**
 * A request the simulated engine refuses, with the HTTP status and the error {@code type} vLLM
 * would report ({@code BadRequestError} for 400, {@code NotFoundError} for 404, …).
 */
public final class SimRequestException extends Exception {
  private final int status;
  private final String type;
  private final String param;

  public SimRequestException(int status, String type, String message, String param) {
    super(message);
    this.status = status;
    this.type = type;
    this.param = param;
  }

  public static SimRequestException badRequest(String message) {
    return new SimRequestException(400, "BadRequestError", message, null);
  }

  public static SimRequestException badRequest(String message, String param) {
    return new SimRequestException(400, "BadRequestError", message, param);
  }

  public int status() {
    return status;
  }

  public String type() {
    return type;
  }

  public String param() {
    return param;
  }
}
