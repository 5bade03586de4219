package io.sightline.gateway.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A small local image host for media tests: serves test-resource images with {@code Range} support,
 * plus redirect, slow and range-ignoring paths. Counts requests per path.
 */
public final class ImageServer implements AutoCloseable {
  private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d*)");
  private final HttpServer server;
  private final Map<String, byte[]> files = new ConcurrentHashMap<>();
  private final Map<String, String> redirects = new ConcurrentHashMap<>();
  public final Map<String, AtomicInteger> hits = new ConcurrentHashMap<>();
  public final Map<String, String> lastRange = new ConcurrentHashMap<>();

  public ImageServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext("/", this::handle);
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** Serves {@code /images/<resource>} at {@code path}. */
  public ImageServer file(String path, String resource) throws IOException {
    try (InputStream in = ImageServer.class.getResourceAsStream("/images/" + resource)) {
      files.put(path, in.readAllBytes());
    }
    return this;
  }

  public ImageServer bytes(String path, byte[] bytes) {
    files.put(path, bytes);
    return this;
  }

  public ImageServer redirect(String path, String location) {
    redirects.put(path, location);
    return this;
  }

  public int hits(String path) {
    AtomicInteger n = hits.get(path);
    return n == null ? 0 : n.get();
  }

  private void handle(HttpExchange ex) throws IOException {
    String path = ex.getRequestURI().getPath();
    hits.computeIfAbsent(path, k -> new AtomicInteger()).incrementAndGet();
    try (ex) {
      if (path.startsWith("/slow")) {
        try {
          Thread.sleep(3_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      String location = redirects.get(path);
      if (location != null) {
        ex.getResponseHeaders().set("Location", location);
        ex.sendResponseHeaders(302, -1);
        return;
      }
      byte[] body = files.get(path.replace("/slow", "").replace("/norange", ""));
      if (body == null) {
        ex.sendResponseHeaders(404, -1);
        return;
      }
      ex.getResponseHeaders().set("Content-Type", "image/png");
      String range = ex.getRequestHeaders().getFirst("Range");
      if (range != null) {
        lastRange.put(path, range);
      }
      Matcher m = range == null || path.startsWith("/norange") ? null : RANGE.matcher(range);
      if (m != null && m.matches()) {
        int from = Integer.parseInt(m.group(1));
        int to =
            m.group(2).isEmpty()
                ? body.length - 1
                : Math.min(body.length - 1, Integer.parseInt(m.group(2)));
        int n = Math.max(0, to - from + 1);
        ex.getResponseHeaders()
            .set("Content-Range", "bytes " + from + "-" + to + "/" + body.length);
        ex.sendResponseHeaders(206, n);
        try (OutputStream out = ex.getResponseBody()) {
          out.write(body, from, n);
        }
        return;
      }
      ex.sendResponseHeaders(200, body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      } catch (IOException e) {
        // client stopped reading (prefix fetch): fine
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
