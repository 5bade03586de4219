package io.sightline.registry.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.sightline.registry.model.RegistryJson;
import io.sightline.registry.model.WorkerInstance;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker side of self-registration, for anything that fronts an engine (worker-sim, a sidecar
 * next to vLLM / TRT-LLM): registers the worker with a lease over the registry's REST API, then
 * heartbeats every TTL / 3 so one lost heartbeat never drops it, re-registers when the registry
 * answers 404 (lease lapsed during a partition, or registry restarted without the lease), and
 * deregisters on {@link #close()}. This is the lease pattern Dynamo workers use with etcd
 * (dynamo.md §9), over HTTP so workers need no etcd client.
 *
 * <p>{@link #register()} fails fast with {@link RegistrationRefusedException} when the registry
 * refuses the worker (4xx: invalid fields, unknown model, block size or dialect mismatch), so a
 * misconfigured worker stops at start-up with the registry's reason instead of serving traffic the
 * router can never match.
 */
public final class WorkerRegistrar implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerRegistrar.class);

  private final URI base;
  private final String token;
  private final WorkerInstance worker;
  private final Duration ttl;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().daemon().name("registry-heartbeat").factory());
  private final AtomicLong registrations = new AtomicLong();
  private volatile boolean closed;

  /** The registry refused the worker; {@link #getMessage()} carries its reasons. */
  public static final class RegistrationRefusedException extends RuntimeException {
    private final int status;

    RegistrationRefusedException(int status, String message) {
      super(message);
      this.status = status;
    }

    public int status() {
      return status;
    }
  }

  /**
   * @param registry registry base URL
   * @param adminToken bearer token when the registry requires one, else null
   * @param worker the worker to register (its {@code lease_ttl_seconds} is replaced by {@code ttl})
   * @param ttl lease TTL; a worker silent this long is removed
   */
  public WorkerRegistrar(URI registry, String adminToken, WorkerInstance worker, Duration ttl) {
    String s = registry.toString();
    this.base = URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
    this.token = adminToken == null || adminToken.isBlank() ? null : adminToken;
    if (ttl.toSeconds() < 1) {
      throw new IllegalArgumentException("lease TTL must be at least 1 s");
    }
    this.ttl = ttl;
    this.worker = worker.withLeaseTtlSeconds((int) ttl.toSeconds());
  }

  /**
   * Registers the worker and starts heartbeating.
   *
   * @throws RegistrationRefusedException when the registry answers 4xx
   * @throws IOException when the registry cannot be reached
   */
  public void register() throws IOException, InterruptedException {
    put();
    long every = Math.max(100, ttl.toMillis() / 3);
    timer.scheduleWithFixedDelay(this::beat, every, every, TimeUnit.MILLISECONDS);
  }

  /** How many times the worker was (re-)registered. */
  public long registrations() {
    return registrations.get();
  }

  /** Marks the worker draining (no new requests) ahead of a shutdown. */
  public void drain() throws IOException, InterruptedException {
    HttpResponse<String> r =
        send(
            request("/state")
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"state\":\"draining\"}"))
                .build());
    if (r.statusCode() != 200) {
      throw new IOException("drain answered " + r.statusCode() + ": " + r.body());
    }
  }

  /** Stops heartbeating and deregisters (best effort). */
  @Override
  public void close() {
    closed = true;
    timer.shutdownNow();
    try {
      send(request("").DELETE().build());
    } catch (IOException e) {
      LOG.info("deregistering {} failed ({}); its lease will lapse", worker.id(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void beat() {
    if (closed) {
      return;
    }
    try {
      HttpResponse<String> r =
          send(request("/heartbeat").POST(HttpRequest.BodyPublishers.noBody()).build());
      if (r.statusCode() == 404) {
        LOG.info("worker {} lease lapsed; registering again", worker.id());
        put();
      } else if (r.statusCode() / 100 != 2) {
        LOG.warn("heartbeat for {} answered {}: {}", worker.id(), r.statusCode(), r.body());
      }
    } catch (RegistrationRefusedException e) {
      LOG.error("registry refused re-registration of {}: {}", worker.id(), e.getMessage());
    } catch (IOException e) {
      LOG.debug("heartbeat for {} failed: {}", worker.id(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void put() throws IOException, InterruptedException {
    String body;
    try {
      body = RegistryJson.mapper().writeValueAsString(worker);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    HttpResponse<String> r =
        send(
            request("")
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body))
                .build());
    if (r.statusCode() == 200 || r.statusCode() == 201) {
      registrations.incrementAndGet();
      return;
    }
    String message = errorMessage(r.body());
    if (r.statusCode() / 100 == 4) {
      throw new RegistrationRefusedException(
          r.statusCode(), "registry refused worker " + worker.id() + ": " + message);
    }
    throw new IOException("registry answered " + r.statusCode() + ": " + message);
  }

  private static String errorMessage(String body) {
    try {
      JsonNode n = RegistryJson.mapper().readTree(body);
      return n.at("/error/message").asText(body);
    } catch (IOException | RuntimeException e) {
      return body;
    }
  }

  private HttpRequest.Builder request(String suffix) {
    String id = URLEncoder.encode(worker.id(), StandardCharsets.UTF_8);
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + "/v1/admin/workers/" + id + suffix))
            .timeout(Duration.ofSeconds(5));
    return token == null ? b : b.header("Authorization", "Bearer " + token);
  }

  private HttpResponse<String> send(HttpRequest req) throws IOException, InterruptedException {
    return http.send(req, HttpResponse.BodyHandlers.ofString());
  }
}
