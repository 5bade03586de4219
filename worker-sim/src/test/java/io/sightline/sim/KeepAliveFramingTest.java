package io.sightline.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.sim.engine.TimingModel;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HTTP/1.1 keep-alive hygiene of the simulator's server, checked on the wire: several threads, each
 * on its own persistent connection, send every kind of request the simulator serves (chat and
 * completions, streaming and not, models, health, metrics, errors, a HEAD, a chunked request body,
 * a body the handler never reads) and parse every response strictly — status line, headers, then
 * exactly the body its framing declares (Content-Length or chunked). A stray byte anywhere (a body
 * longer than its Content-Length, a write after the response ended, an extra chunk or CRLF, a
 * second response) makes the next parse fail, and the connection is checked for pending bytes
 * before every request and once more after the last one.
 *
 * <p>Written for the gateway benchmark's report that the JDK {@code HttpClient} fails with "Data
 * received while in pool" against a zero-delay worker with four concurrent clients. That is a race
 * inside the JDK 25 client itself (its pool's cleanup subscriber, registered asynchronously when a
 * connection is returned, can still be reading when the connection is reused, and then swallows the
 * next response if the server answers within microseconds; JDK-8357639): it happens just the same
 * against nginx serving a static response, while this strict client sees the simulator frame every
 * response exactly. A raw client is used here because the JDK client's race would make a test that
 * uses it flaky without saying anything about the server.
 */
class KeepAliveFramingTest {
  static final int THREADS = 4;
  static final int REQUESTS_PER_THREAD = 1_500;
  static SimulatedWorker worker;

  @BeforeAll
  static void start() throws Exception {
    worker =
        SimulatedWorker.start(
            SimOptions.defaults()
                .withServedModelName("m")
                .withHashSeed("0")
                .withTiming(TimingModel.DEFAULT.withSpeedup(Double.POSITIVE_INFINITY))
                .withZmqPorts(-1, -1));
  }

  @AfterAll
  static void stop() {
    worker.close();
  }

  /** One request as it goes on the wire, and what its answer must be. */
  record Call(
      String name,
      String method,
      String path,
      String body,
      boolean chunkedBody,
      int status,
      Predicate<String> expected) {}

  /** One parsed response. */
  record Response(int status, Map<String, String> headers, String body) {}

  private static List<Call> calls() {
    String chat = "{\"model\":\"m\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":";
    String completion = "{\"model\":\"m\",\"max_tokens\":4,\"prompt\":";
    Predicate<String> sse = b -> b.startsWith("data: {") && b.endsWith("data: [DONE]\n\n");
    Predicate<String> json = b -> b.startsWith("{") && b.endsWith("}");
    Predicate<String> error = b -> b.startsWith("{\"error\":{") && b.endsWith("}");
    List<Call> calls = new ArrayList<>();
    calls.add(
        new Call(
            "chat",
            "POST",
            "/v1/chat/completions",
            chat + "\"hello\"}]}",
            false,
            200,
            json.and(b -> b.contains("\"completion_tokens\":4"))));
    calls.add(
        new Call(
            "chat-stream-usage",
            "POST",
            "/v1/chat/completions",
            chat + "\"stream\"}],\"stream\":true,\"stream_options\":{\"include_usage\":true}}",
            false,
            200,
            sse.and(b -> b.contains("\"completion_tokens\":4"))));
    calls.add(
        new Call(
            "completion", "POST", "/v1/completions", completion + "\"once\"}", false, 200, json));
    calls.add(
        new Call(
            "completion-stream",
            "POST",
            "/v1/completions",
            completion + "\"upon\",\"stream\":true}",
            false,
            200,
            sse));
    calls.add(
        new Call(
            "chat-chunked-request-body",
            "POST",
            "/v1/chat/completions",
            chat + "\"sent in chunks\"}]}",
            true,
            200,
            json));
    calls.add(new Call("models", "GET", "/v1/models", null, false, 200, b -> b.contains("\"m\"")));
    calls.add(new Call("health", "GET", "/health", null, false, 200, String::isEmpty));
    calls.add(new Call("version", "GET", "/version", null, false, 200, json));
    calls.add(
        new Call(
            "metrics", "GET", "/metrics", null, false, 200, b -> b.contains("vllm:num_requests")));
    calls.add(new Call("sim-info", "GET", "/sim/info", null, false, 200, json));
    calls.add(new Call("faults", "GET", "/sim/faults", null, false, 200, json));
    calls.add(new Call("bad-json", "POST", "/v1/chat/completions", "{not json", false, 400, error));
    calls.add(
        new Call(
            "bad-max-tokens",
            "POST",
            "/v1/chat/completions",
            "{\"max_tokens\":0,\"messages\":[]}",
            false,
            400,
            error));
    calls.add(
        new Call(
            "unknown-model", "POST", "/v1/completions", "{\"model\":\"x\"}", false, 404, error));
    calls.add(new Call("faults-bad-json", "POST", "/sim/faults", "{oops", false, 400, error));
    calls.add(new Call("not-found", "GET", "/nope", null, false, 404, error));
    calls.add(new Call("get-on-post-route", "GET", "/v1/completions", null, false, 405, error));
    // The handler rejects the method without reading the body; the server must drain it.
    calls.add(new Call("unread-body", "POST", "/health", "{\"ignored\":true}", false, 405, error));
    calls.add(new Call("head-rejected", "HEAD", "/health", null, false, 405, String::isEmpty));
    calls.add(new Call("head-models", "HEAD", "/v1/models", null, false, 200, String::isEmpty));
    calls.add(new Call("trt-only-route", "POST", "/kv_cache_events", "", false, 404, error));
    return calls;
  }

  @Test
  void everyResponseIsFramedExactlyOnPersistentConnections() throws Exception {
    List<Call> calls = calls();
    Map<String, String> failures = new ConcurrentHashMap<>();
    AtomicInteger ok = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int offset = t;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    String current = "connect";
                    try (Socket s = new Socket("127.0.0.1", worker.port())) {
                      s.setTcpNoDelay(true);
                      s.setSoTimeout(30_000);
                      InputStream in = new BufferedInputStream(s.getInputStream());
                      OutputStream out = s.getOutputStream();
                      go.await();
                      for (int i = 0; i < REQUESTS_PER_THREAD; i++) {
                        // Every kind in turn, each thread starting at a different one.
                        Call c = calls.get((i + offset * 5) % calls.size());
                        current = c.name() + " (#" + i + " on this connection)";
                        if (in.available() > 0) {
                          failures.putIfAbsent(
                              current, in.available() + " stray bytes before the request");
                          return;
                        }
                        send(out, c);
                        Response r = read(in, c.method());
                        if (r.status() != c.status() || !c.expected().test(r.body())) {
                          failures.putIfAbsent(current, "answered " + r.status() + ": " + r.body());
                          return;
                        }
                        if (c.method().equals("HEAD")
                            && !r.headers().containsKey("content-length")) {
                          // A HEAD answer says how long the GET's body would be.
                          failures.putIfAbsent(current, "HEAD answer without Content-Length");
                          return;
                        }
                        if ("close".equalsIgnoreCase(r.headers().get("connection"))) {
                          failures.putIfAbsent(current, "the server closed the connection");
                          return;
                        }
                        ok.incrementAndGet();
                      }
                      // Nothing may follow the last response either.
                      s.setSoTimeout(200);
                      try {
                        int b = in.read();
                        failures.putIfAbsent(
                            "after " + current,
                            b < 0 ? "connection closed" : "stray byte after the last response");
                      } catch (SocketTimeoutException expected) {
                        // silence, as it should be
                      }
                    } catch (Exception e) {
                      failures.putIfAbsent(current, e.toString());
                    }
                  }));
    }
    go.countDown();
    for (Thread t : threads) {
      t.join(Duration.ofMinutes(2));
    }
    assertThat(failures).isEmpty();
    assertThat(ok.get()).isEqualTo(THREADS * REQUESTS_PER_THREAD);
  }

  private static void send(OutputStream out, Call c) throws IOException {
    StringBuilder head = new StringBuilder();
    head.append(c.method()).append(' ').append(c.path()).append(" HTTP/1.1\r\n");
    head.append("Host: 127.0.0.1\r\n");
    byte[] body = c.body() == null ? new byte[0] : c.body().getBytes(StandardCharsets.UTF_8);
    if (c.body() != null) {
      head.append("Content-Type: application/json\r\n");
      if (c.chunkedBody()) {
        head.append("Transfer-Encoding: chunked\r\n");
      } else {
        head.append("Content-Length: ").append(body.length).append("\r\n");
      }
    }
    head.append("\r\n");
    out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    if (c.chunkedBody()) {
      // Two chunks, then the last-chunk and an empty trailer.
      int half = body.length / 2;
      writeChunk(out, body, 0, half);
      writeChunk(out, body, half, body.length - half);
      out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    } else {
      out.write(body);
    }
    out.flush();
  }

  private static void writeChunk(OutputStream out, byte[] data, int off, int len)
      throws IOException {
    out.write((Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
    out.write(data, off, len);
    out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
  }

  /** Reads exactly one response, as its framing declares, and not one byte more. */
  private static Response read(InputStream in, String method) throws IOException {
    String statusLine = line(in);
    if (!statusLine.matches("HTTP/1\\.1 \\d{3}( .*)?")) {
      throw new IOException("not a status line: [" + statusLine + "]");
    }
    int status = Integer.parseInt(statusLine.substring(9, 12));
    Map<String, String> headers = new LinkedHashMap<>();
    for (String h = line(in); !h.isEmpty(); h = line(in)) {
      int colon = h.indexOf(':');
      if (colon <= 0) {
        throw new IOException("bad header line: [" + h + "]");
      }
      String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      if (headers.put(name, h.substring(colon + 1).trim()) != null) {
        throw new IOException("header repeated: " + name);
      }
    }
    if (status / 100 == 1) {
      throw new IOException("unexpected interim response " + status);
    }
    if (method.equals("HEAD") || status == 204 || status == 304) {
      if (headers.containsKey("transfer-encoding")) {
        throw new IOException("a bodiless response announced a chunked body");
      }
      return new Response(status, headers, "");
    }
    String te = headers.get("transfer-encoding");
    String cl = headers.get("content-length");
    if (te != null && cl != null) {
      throw new IOException("both Content-Length and Transfer-Encoding");
    }
    byte[] body;
    if (te != null) {
      if (!te.equalsIgnoreCase("chunked")) {
        throw new IOException("unexpected Transfer-Encoding " + te);
      }
      body = chunked(in);
    } else if (cl != null) {
      int n = Integer.parseInt(cl);
      body = in.readNBytes(n);
      if (body.length != n) {
        throw new EOFException("body shorter than its Content-Length " + n);
      }
    } else {
      // Close-delimited: not acceptable on a persistent connection.
      throw new IOException("neither Content-Length nor chunked: " + headers);
    }
    return new Response(status, headers, new String(body, StandardCharsets.UTF_8));
  }

  private static byte[] chunked(InputStream in) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = line(in);
      int semi = sizeLine.indexOf(';');
      int size = Integer.parseInt(semi < 0 ? sizeLine : sizeLine.substring(0, semi), 16);
      if (size == 0) {
        // Trailer section: header lines up to an empty line.
        while (!line(in).isEmpty()) {
          // ignore trailers
        }
        return body.toByteArray();
      }
      byte[] chunk = in.readNBytes(size);
      if (chunk.length != size) {
        throw new EOFException("chunk shorter than " + size);
      }
      body.write(chunk);
      if (!line(in).isEmpty()) {
        throw new IOException("chunk not followed by CRLF");
      }
    }
  }

  /** One CRLF-terminated line (a bare LF is a framing error here). */
  private static String line(InputStream in) throws IOException {
    StringBuilder sb = new StringBuilder();
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new EOFException("connection closed after [" + sb + "]");
      }
      if (c == '\r') {
        if (in.read() != '\n') {
          throw new IOException("CR not followed by LF after [" + sb + "]");
        }
        return sb.toString();
      }
      if (c == '\n') {
        throw new IOException("bare LF after [" + sb + "]");
      }
      sb.append((char) c);
    }
  }
}
