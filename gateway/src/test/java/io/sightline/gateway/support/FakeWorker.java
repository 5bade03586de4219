package io.sightline.gateway.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * An OpenAI-speaking stand-in for an engine, for the gateway's fault-injection tests (failing with
 * 500, answering slowly). Answers name the worker, report {@code cached_tokens}, and stream SSE in
 * several flushed chunks; every request body received is recorded.
 */
public final class FakeWorker implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What the worker does with the next requests. */
  public enum Mode {
    OK,
    FAIL_500,
    SLOW
  }

  private final String name;
  private final HttpServer server;
  public final List<JsonNode> received = new CopyOnWriteArrayList<>();
  public volatile Mode mode = Mode.OK;
  public volatile int cachedTokens = 0;

  public FakeWorker(String name) throws IOException {
    this.name = name;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(8));
    server.createContext("/v1/", this::handle);
    server.start();
  }

  public String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      JsonNode body = JSON.readTree(ex.getRequestBody());
      received.add(body);
      if (mode == Mode.FAIL_500) {
        byte[] b = "{\"error\":{\"message\":\"engine died\"}}".getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(500, b.length);
        ex.getResponseBody().write(b);
        return;
      }
      if (mode == Mode.SLOW) {
        try {
          Thread.sleep(3_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      boolean chat = ex.getRequestURI().getPath().endsWith("/chat/completions");
      if (body.path("stream").asBoolean(false)) {
        ex.getResponseHeaders().set("Content-Type", "text/event-stream");
        ex.sendResponseHeaders(200, 0);
        OutputStream out = ex.getResponseBody();
        for (String word : new String[] {"hello ", "from ", name}) {
          ObjectNode chunk = JSON.createObjectNode();
          chunk.put("id", "chatcmpl-1").put("object", "chat.completion.chunk").put("created", 1);
          chunk.put("model", body.path("model").asText());
          ObjectNode choice = chunk.putArray("choices").addObject();
          choice.put("index", 0);
          if (chat) {
            choice.putObject("delta").put("content", word);
          } else {
            choice.put("text", word);
          }
          choice.putNull("finish_reason");
          out.write(("data: " + chunk + "\n\n").getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
        if (body.path("stream_options").path("include_usage").asBoolean(false)) {
          ObjectNode chunk = JSON.createObjectNode();
          chunk.put("id", "chatcmpl-1").put("object", "chat.completion.chunk").put("created", 1);
          chunk.put("model", body.path("model").asText());
          chunk.putArray("choices");
          usage(chunk);
          out.write(("data: " + chunk + "\n\n").getBytes(StandardCharsets.UTF_8));
        }
        out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
        return;
      }
      ObjectNode resp = JSON.createObjectNode();
      resp.put("id", "chatcmpl-1").put("created", 1).put("model", body.path("model").asText());
      ObjectNode choice = resp.putArray("choices").addObject();
      choice.put("index", 0).put("finish_reason", "stop");
      if (chat) {
        resp.put("object", "chat.completion");
        choice.putObject("message").put("role", "assistant").put("content", "hello from " + name);
      } else {
        resp.put("object", "text_completion");
        choice.put("text", "hello from " + name);
      }
      usage(resp);
      byte[] b = resp.toString().getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(200, b.length);
      ex.getResponseBody().write(b);
    }
  }

  private void usage(ObjectNode node) {
    ObjectNode u = node.putObject("usage");
    u.put("prompt_tokens", 40).put("completion_tokens", 3).put("total_tokens", 43);
    u.putObject("prompt_tokens_details").put("cached_tokens", cachedTokens);
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
