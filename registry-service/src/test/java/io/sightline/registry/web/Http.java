package io.sightline.registry.web;

import com.fasterxml.jackson.databind.JsonNode;
import io.sightline.registry.model.RegistryJson;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** A tiny JSON HTTP helper for API tests; every call has a timeout. */
public final class Http {
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;

  public Http(String base) {
    this.base = base;
  }

  /** A response with its parsed JSON body (null when empty or not JSON). */
  public record Res(int status, String body, HttpResponse<String> raw) {
    public JsonNode json() {
      try {
        return body == null || body.isEmpty() ? null : RegistryJson.mapper().readTree(body);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + body, e);
      }
    }

    public String etag() {
      return raw.headers().firstValue("ETag").orElse(null);
    }
  }

  public Res get(String path) {
    return send("GET", path, null, Map.of());
  }

  public Res post(String path, String body) {
    return send("POST", path, body, Map.of());
  }

  public Res put(String path, String body) {
    return send("PUT", path, body, Map.of());
  }

  public Res delete(String path) {
    return send("DELETE", path, null, Map.of());
  }

  public Res send(String method, String path, String body, Map<String, String> headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10));
    if (body != null) {
      b.header("Content-Type", "application/json");
      b.method(method, HttpRequest.BodyPublishers.ofString(body));
    } else {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    }
    headers.forEach(b::header);
    try {
      HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Res(r.statusCode(), r.body(), r);
    } catch (IOException e) {
      throw new AssertionError(method + " " + path + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
