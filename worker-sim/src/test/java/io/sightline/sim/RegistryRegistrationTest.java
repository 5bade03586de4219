package io.sightline.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.sightline.sim.engine.TimingModel;
import io.sightline.sim.http.Json;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Self-registration against a stand-in for registry-service's REST routes (a JDK HttpServer at the
 * test's edge): lease registration, heartbeats, re-registration after the lease lapsed (404) and
 * PUT when the id still exists (409).
 */
class RegistryRegistrationTest {
  record Call(String method, String path, String body) {}

  @Test
  void registersHeartbeatsAndReRegisters() throws Exception {
    List<Call> calls = new CopyOnWriteArrayList<>();
    AtomicInteger heartbeats = new AtomicInteger();
    HttpServer registry = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    registry.createContext(
        "/",
        ex -> {
          String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          String path = ex.getRequestURI().toString();
          calls.add(new Call(ex.getRequestMethod(), path, body));
          int status;
          if (path.endsWith("/heartbeat")) {
            // The first heartbeat succeeds, the second finds the lease lapsed.
            status = heartbeats.incrementAndGet() == 2 ? 404 : 204;
          } else if (ex.getRequestMethod().equals("POST")) {
            status = calls.stream().filter(c -> c.method().equals("POST")).count() > 1 ? 409 : 201;
          } else {
            status = 200;
          }
          ex.sendResponseHeaders(status, -1);
          ex.close();
        });
    registry.start();
    String url = "http://127.0.0.1:" + registry.getAddress().getPort();
    try (SimulatedWorker w =
        SimulatedWorker.start(
            SimOptions.defaults()
                .withServedModelName("m")
                .withTiming(TimingModel.DEFAULT.withSpeedup(Double.POSITIVE_INFINITY))
                .withRegistry(url, "sim-a", null))) {
      long deadline = System.currentTimeMillis() + 20_000;
      while (System.currentTimeMillis() < deadline
          && calls.stream().noneMatch(c -> c.method().equals("PUT"))) {
        Thread.sleep(100);
      }
      Call first = calls.getFirst();
      assertThat(first.method()).isEqualTo("POST");
      assertThat(first.path()).isEqualTo("/v1/admin/workers?lease=true");
      JsonNode body = Json.MAPPER.readTree(first.body());
      assertThat(body.get("id").asText()).isEqualTo("sim-a");
      assertThat(body.get("model").asText()).isEqualTo("m");
      assertThat(body.get("base_url").asText()).isEqualTo(w.baseUrl());
      assertThat(body.get("dialect").asText()).isEqualTo("vllm");
      assertThat(body.get("kv_block_size").asInt()).isEqualTo(16);
      assertThat(body.at("/kv_events/kind").asText()).isEqualTo("zmq");
      assertThat(body.at("/kv_events/endpoint").asText()).isEqualTo(w.eventEndpoint());
      assertThat(body.at("/kv_events/replay_endpoint").asText()).isEqualTo(w.replayEndpoint());
      assertThat(body.get("lease_ttl_seconds").asInt()).isPositive();
      // POST, heartbeat (204), heartbeat (404 -> lapsed), POST again (409) -> PUT.
      assertThat(calls.stream().map(c -> c.method() + " " + c.path()).toList())
          .startsWith(
              "POST /v1/admin/workers?lease=true",
              "POST /v1/admin/workers/sim-a/heartbeat",
              "POST /v1/admin/workers/sim-a/heartbeat")
          .contains("PUT /v1/admin/workers/sim-a?lease=true");
    } finally {
      registry.stop(0);
    }
    assertThat(calls.getLast().method()).isEqualTo("DELETE");
  }
}
