package io.sightline.registry.client;

import io.sightline.registry.store.StoreEvent;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RegistryClient} that follows a registry service over HTTP: {@code GET /v1/admin/snapshot}
 * once, then the SSE change stream {@code GET /v1/admin/watch?from_revision=N} (see
 * docs/registry.md).
 *
 * <p>One reader thread owns the cache: it loads, streams, applies events in order and reconnects.
 * When the stream breaks (registry restart, network) {@link #connected()} turns false, the cache
 * keeps answering from the last fleet, and the reader reconnects with exponential backoff from
 * {@code revision() + 1}; the registry replays what was missed, or sends {@code resync} when that
 * history is gone, and the client then reloads the snapshot and emits the differences. A watchdog
 * drops a stream that stays silent longer than {@code idleTimeout} (the server sends keep-alive
 * comments), so a half-open connection cannot freeze the cache.
 */
public final class RemoteRegistryClient extends CachingRegistryClient {
  private static final Logger LOG = LoggerFactory.getLogger(RemoteRegistryClient.class);

  private final URI base;
  private final String token;
  private final HttpClient http;
  private final Duration retryDelay;
  private final Duration maxRetryDelay;
  private final Duration idleTimeout;
  private final Thread reader;
  private final ScheduledExecutorService watchdog;
  private volatile boolean closed;
  private volatile long lastByteNanos = System.nanoTime();
  private volatile InputStream current;
  private boolean loaded;

  /** A client with 200 ms initial backoff, 5 s cap and 15 s idle timeout. */
  public RemoteRegistryClient(URI base) {
    this(base, null, Duration.ofMillis(200), Duration.ofSeconds(5), Duration.ofSeconds(15));
  }

  public RemoteRegistryClient(
      URI base, Duration retryDelay, Duration maxRetryDelay, Duration idleTimeout) {
    this(base, null, retryDelay, maxRetryDelay, idleTimeout);
  }

  /**
   * @param adminToken sent as {@code Authorization: Bearer} when the registry requires one; null
   *     for none
   */
  public RemoteRegistryClient(
      URI base,
      String adminToken,
      Duration retryDelay,
      Duration maxRetryDelay,
      Duration idleTimeout) {
    this.token = adminToken == null || adminToken.isBlank() ? null : adminToken.strip();
    String s = base.toString();
    this.base = URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
    this.retryDelay = retryDelay;
    this.maxRetryDelay = maxRetryDelay;
    this.idleTimeout = idleTimeout;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    // Load synchronously once so a client built while the registry is up starts full.
    try {
      loadSnapshot();
    } catch (IOException | RuntimeException e) {
      LOG.warn("registry at {} not reachable at start-up: {}", this.base, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    this.watchdog =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("registry-remote-watchdog").factory());
    long check = Math.max(50, idleTimeout.toMillis() / 3);
    watchdog.scheduleWithFixedDelay(this::checkIdle, check, check, TimeUnit.MILLISECONDS);
    this.reader = Thread.ofPlatform().daemon().name("registry-remote").start(this::run);
  }

  @Override
  public void close() {
    closed = true;
    watchdog.shutdownNow();
    closeCurrent();
    reader.interrupt();
  }

  // --- reader thread --------------------------------------------------------------------------

  private void run() {
    Duration delay = retryDelay;
    while (!closed) {
      try {
        if (!loaded) {
          loadSnapshot();
        }
        stream();
        delay = retryDelay;
      } catch (InterruptedException e) {
        if (closed) {
          return;
        }
        Thread.interrupted(); // the watchdog interrupted a silent stream: reconnect
      } catch (IOException | RuntimeException e) {
        String m = String.valueOf(e.getMessage());
        if (m.contains("HTTP 401") || m.contains("HTTP 403")) {
          // a configuration error, not an outage: say so loudly (retrying anyway)
          LOG.warn(
              "registry at {} refused the client ({}): check sightline.registry.admin-token",
              base,
              m);
        } else {
          LOG.debug("registry stream from {} failed: {}", base, e.toString());
        }
      } finally {
        closeCurrent();
      }
      setConnected(false);
      if (closed) {
        return;
      }
      try {
        Thread.sleep(delay.toMillis());
      } catch (InterruptedException e) {
        if (closed) {
          return;
        }
      }
      delay = doubled(delay, maxRetryDelay);
    }
  }

  private void loadSnapshot() throws IOException, InterruptedException {
    HttpRequest req =
        authorized(HttpRequest.newBuilder(URI.create(base + "/v1/admin/snapshot")))
            .timeout(Duration.ofSeconds(10))
            .header("Accept", "application/json")
            .GET()
            .build();
    HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      throw new IOException("snapshot answered HTTP " + r.statusCode());
    }
    cache.replace(WireFormat.parseSnapshot(r.body()));
    loaded = true;
  }

  /** Streams until the connection ends or the server asks for a resync. */
  private void stream() throws IOException, InterruptedException {
    long from = cache.revision() + 1;
    HttpRequest req =
        authorized(
                HttpRequest.newBuilder(URI.create(base + "/v1/admin/watch?from_revision=" + from)))
            .header("Accept", "text/event-stream")
            .GET()
            .build();
    HttpResponse<InputStream> r = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    current = r.body();
    lastByteNanos = System.nanoTime();
    if (r.statusCode() != 200) {
      throw new IOException("watch answered HTTP " + r.statusCode());
    }
    setConnected(true);
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
      String event = "message";
      StringBuilder data = new StringBuilder();
      String line;
      while ((line = in.readLine()) != null) {
        lastByteNanos = System.nanoTime();
        if (Thread.currentThread().isInterrupted()) {
          throw new InterruptedException("idle stream");
        }
        if (line.isEmpty()) {
          if (!data.isEmpty()) {
            if (!dispatch(event, data.toString())) {
              return;
            }
          }
          event = "message";
          data.setLength(0);
        } else if (line.startsWith(":")) {
          continue; // keep-alive comment
        } else if (line.startsWith("event:")) {
          event = line.substring(6).trim();
        } else if (line.startsWith("data:")) {
          if (!data.isEmpty()) {
            data.append('\n');
          }
          data.append(line.substring(5).stripLeading());
        }
      }
    }
    throw new IOException("registry stream closed");
  }

  /** Handles one SSE event; false when the stream must be re-opened after a reload. */
  private boolean dispatch(String event, String data) throws IOException {
    switch (event) {
      case "change" -> {
        StoreEvent e = WireFormat.parseEvent(data);
        cache.apply(List.of(e));
        return true;
      }
      case "resync" -> {
        loaded = false;
        return false;
      }
      default -> {
        return true;
      }
    }
  }

  private HttpRequest.Builder authorized(HttpRequest.Builder b) {
    return token == null ? b : b.header("Authorization", "Bearer " + token);
  }

  private void checkIdle() {
    if (current != null && System.nanoTime() - lastByteNanos > idleTimeout.toNanos()) {
      LOG.info("registry stream from {} idle for {}; reconnecting", base, idleTimeout);
      closeCurrent();
      reader.interrupt();
    }
  }

  private void closeCurrent() {
    InputStream in = current;
    current = null;
    if (in != null) {
      try {
        in.close();
      } catch (IOException e) {
        LOG.debug("closing stream: {}", e.toString());
      }
    }
  }
}
