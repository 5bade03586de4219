package io.sightline.sim;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.sim.http.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Self-registration with the Sightline registry (registry-service {@code RegistryRoutes}), as a
 * real worker's sidecar would do: {@code POST {registry}/v1/admin/workers?lease=true} with a {@code
 * worker-instance.v1} body carrying a lease TTL ({@code 409} = the id still exists: {@code PUT
 * …/workers/{id}?lease=true} instead), then a heartbeat every TTL/3 ({@code POST
 * …/v1/admin/workers/{id}/heartbeat}, 204); a 404 on heartbeat (lease lapsed, e.g. after a crash)
 * triggers a fresh registration. While the worker is crashed no heartbeats are sent, so the lease
 * lapses as it would for a dead process. Body fields follow registry-service's {@code
 * WorkerInstance} / {@code KvEventSource} JSON (snake_case). The registry's admin token, when it
 * has one, comes from {@code -Dsightline.registry.token} or {@code SIGHTLINE_REGISTRY_TOKEN}; the
 * model card must be registered first (the registry rejects workers of unknown models).
 */
final class RegistryRegistration {
  private static final Logger LOG = Logger.getLogger(RegistryRegistration.class.getName());
  static final int LEASE_TTL_SECONDS = 10;

  private final SimulatedWorker worker;
  private final String registry;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private volatile boolean running = true;
  private volatile boolean registered;
  private Thread thread;

  RegistryRegistration(SimulatedWorker worker, SimOptions options) {
    this.worker = worker;
    String url = options.registryUrl();
    this.registry = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  void start() {
    thread = Thread.ofVirtual().name("sim-registry-" + worker.port()).start(this::loop);
  }

  void stop() {
    running = false;
    if (thread != null) {
      thread.interrupt();
    }
    if (registered) {
      try {
        send("DELETE", "/v1/admin/workers/" + worker.workerId(), null);
      } catch (Exception e) {
        LOG.log(Level.FINE, "deregistration failed", e);
      }
    }
  }

  private void loop() {
    long period = LEASE_TTL_SECONDS * 1000L / 3;
    while (running) {
      try {
        if (worker.isUp()) {
          if (!registered) {
            registered = register();
          } else if (!post("/v1/admin/workers/" + worker.workerId() + "/heartbeat", null)) {
            registered = false;
          }
        }
        Thread.sleep(registered ? period : 1000);
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        LOG.log(Level.FINE, "registry call failed", e);
        registered = false;
      }
    }
  }

  private boolean register() throws Exception {
    ObjectNode body = body();
    int status = send("POST", "/v1/admin/workers?lease=true", body);
    if (status == 409) {
      status = send("PUT", "/v1/admin/workers/" + worker.workerId() + "?lease=true", body);
    }
    return status / 100 == 2;
  }

  private boolean post(String path, ObjectNode body) throws Exception {
    return send("POST", path, body) / 100 == 2;
  }

  private int send(String method, String path, ObjectNode body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(registry + path))
            .timeout(Duration.ofSeconds(3))
            .header("Content-Type", "application/json");
    String token = token();
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    b.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(Json.MAPPER.writeValueAsString(body)));
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 != 2) {
      LOG.fine(() -> "registry " + method + " " + path + " -> " + r.statusCode() + " " + r.body());
    }
    return r.statusCode();
  }

  private static String token() {
    String t = System.getProperty("sightline.registry.token");
    if (t == null || t.isBlank()) {
      t = System.getenv("SIGHTLINE_REGISTRY_TOKEN");
    }
    return t == null || t.isBlank() ? null : t;
  }

  ObjectNode body() {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("id", worker.workerId());
    o.put("model", worker.modelName());
    o.put("served_model_name", worker.modelName());
    o.put("base_url", worker.baseUrl());
    o.put("dialect", worker.dialect().wireName());
    o.put("data_parallel_size", 1);
    o.put("kv_block_size", worker.cache().blockSize());
    ObjectNode events = o.putObject("kv_events");
    if (worker.dialect() == Dialect.VLLM && worker.eventEndpoint() != null) {
      events.put("kind", "zmq");
      events.put("endpoint", worker.eventEndpoint());
      if (worker.replayEndpoint() != null) {
        events.put("replay_endpoint", worker.replayEndpoint());
      }
      events.put("topic", worker.options().topic());
    } else if (worker.dialect() == Dialect.TRTLLM) {
      events.put("kind", "trtllm_poll");
      events.put("endpoint", worker.baseUrl() + "/kv_cache_events");
      events.put("poll_interval_ms", 100);
    } else {
      events.put("kind", "none");
    }
    o.put("metrics_url", worker.baseUrl() + "/metrics");
    o.putObject("labels").put("simulated", "true");
    o.put("state", "ready");
    o.put("lease_ttl_seconds", LEASE_TTL_SECONDS);
    return o;
  }
}
