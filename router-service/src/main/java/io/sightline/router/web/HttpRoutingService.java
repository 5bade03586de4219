package io.sightline.router.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sightline.router.api.ReleaseRequest;
import io.sightline.router.api.RouteDecision;
import io.sightline.router.api.RouteRequest;
import io.sightline.router.api.RouterJson;
import io.sightline.router.api.RoutingException;
import io.sightline.router.api.RoutingService;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Objects;

/**
 * Remote {@link RoutingService}: the router's HTTP API through the JDK {@link HttpClient}.
 *
 * <p>Blocking by design (the interface is synchronous); reactive callers should run it on a
 * bounded-elastic scheduler. Every call has a request timeout on top of the connect timeout, so a
 * stuck router surfaces as {@link RoutingException} 504 rather than a hung gateway thread. Router
 * errors ({@code {"error":{code,message}}}) come back as {@link RoutingException} with the same
 * status and code; transport failures as 503 {@code router_unavailable}. JDK HttpClient (not
 * Reactor Netty) also sidesteps the keep-alive hang noted in ../shared/reference/java-stack.md §2.
 */
public final class HttpRoutingService implements RoutingService {
  private static final ObjectMapper JSON = RouterJson.mapper();

  private final URI base;
  private final HttpClient http;
  private final Duration requestTimeout;

  /**
   * @param baseUrl router base URL, e.g. {@code http://router:8081}
   * @param connectTimeout TCP connect timeout
   * @param requestTimeout whole-request timeout per call
   */
  public HttpRoutingService(String baseUrl, Duration connectTimeout, Duration requestTimeout) {
    Objects.requireNonNull(baseUrl, "baseUrl");
    String b = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.base = URI.create(b + "/");
    this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(Objects.requireNonNull(connectTimeout, "connectTimeout"))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  @Override
  public RouteDecision route(RouteRequest request) {
    return read(post("v1/route", request), RouteDecision.class);
  }

  @Override
  public RouteDecision explain(RouteRequest request) {
    return read(post("v1/explain", request), RouteDecision.class);
  }

  @Override
  public void release(ReleaseRequest request) {
    post("v1/release", request);
  }

  private String post(String path, Object payload) {
    byte[] body;
    try {
      body = JSON.writeValueAsBytes(payload);
    } catch (IOException e) {
      throw new RoutingException(400, "invalid_request", "cannot serialise request: " + e);
    }
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(requestTimeout)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    HttpResponse<String> resp;
    try {
      resp = http.send(req, HttpResponse.BodyHandlers.ofString());
    } catch (HttpTimeoutException e) {
      throw new RoutingException(
          504, "router_timeout", "router did not answer in " + requestTimeout);
    } catch (IOException e) {
      throw new RoutingException(503, "router_unavailable", "router unreachable: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RoutingException(503, "router_unavailable", "interrupted");
    }
    if (resp.statusCode() / 100 != 2) {
      JsonNode err = RoutingController.parseError(resp.body());
      String code = err == null ? "router_error" : err.path("code").asText("router_error");
      String message =
          err == null ? "router answered HTTP " + resp.statusCode() : err.path("message").asText();
      throw new RoutingException(resp.statusCode(), code, message);
    }
    return resp.body();
  }

  private static <T> T read(String body, Class<T> type) {
    try {
      return JSON.readValue(body, type);
    } catch (IOException e) {
      throw new RoutingException(502, "bad_router_response", "unparseable router answer: " + e);
    }
  }
}
