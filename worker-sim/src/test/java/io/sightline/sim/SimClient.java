package io.sightline.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.sim.http.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Tiny HTTP client for tests (every call has a timeout). */
final class SimClient {
  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  record Response(int status, String body) {
    JsonNode json() {
      try {
        return Json.MAPPER.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + body, e);
      }
    }
  }

  private SimClient() {}

  static Response post(String url, String body) throws IOException, InterruptedException {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return new Response(r.statusCode(), r.body());
  }

  static Response post(String url, JsonNode body) throws IOException, InterruptedException {
    return post(url, Json.MAPPER.writeValueAsString(body));
  }

  static Response get(String url) throws IOException, InterruptedException {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    return new Response(r.statusCode(), r.body());
  }

  /** A chat body with one user message: text plus the given image URLs (uuid optional). */
  static ObjectNode chat(String model, String text, int maxTokens, String... imageUrls) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("model", model);
    body.put("max_tokens", maxTokens);
    ArrayNode content =
        body.putArray("messages").addObject().put("role", "user").putArray("content");
    for (String url : imageUrls) {
      content.addObject().put("type", "image_url").putObject("image_url").put("url", url);
    }
    content.addObject().put("type", "text").put("text", text);
    return body;
  }
}
