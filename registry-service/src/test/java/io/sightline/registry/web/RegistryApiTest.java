package io.sightline.registry.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sightline.registry.RegistryApplication;
import io.sightline.registry.client.RegistryClient;
import io.sightline.registry.client.RegistryEvent;
import io.sightline.registry.client.RemoteRegistryClient;
import io.sightline.registry.client.WorkerRegistrar;
import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.model.WorkerState;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The admin API end to end over HTTP, on the in-memory store (one Spring context). */
@SpringBootTest(
    classes = RegistryApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "sightline.registry.max-body-size=64KB",
      "sightline.registry.sse-heartbeat=500ms",
      "management.endpoints.web.exposure.include=health,prometheus",
      "management.endpoint.health.show-details=always"
    })
class RegistryApiTest {
  @LocalServerPort int port;
  @Autowired RegistryClient inProcess;
  Http http;
  static int seq;

  @BeforeEach
  void setUp() {
    http = new Http("http://127.0.0.1:" + port);
  }

  static String unique(String prefix) {
    return prefix + "-" + (++seq) + "-" + System.nanoTime() % 100000;
  }

  static String card(String name) {
    return """
        {"name":"%s","aliases":["%s-alias"],"backend":"vllm",
         "hf":{"files":{"config.json":{"model_type":"qwen2_vl"}}},
         "kv_block_size":16,"mm_scheme":"gen2",
         "media_decoder":{"enabled":true,"max_bytes":1048576},
         "lora_adapters":[{"name":"%s-lora","path":"/loras/x"}],"context_length":32768}
        """
        .formatted(name, name, name);
  }

  static String worker(String id, String model, int blockSize) {
    return """
        {"id":"%s","model":"%s","base_url":"http://10.1.2.3:8000","dialect":"vllm",
         "data_parallel_size":2,"kv_block_size":%d,
         "kv_events":{"kind":"zmq","endpoint":"tcp://10.1.2.3:5557","replay_endpoint":"tcp://10.1.2.3:5558"},
         "metrics_url":"http://10.1.2.3:8000/metrics","labels":{"zone":"eu-1"}}
        """
        .formatted(id, model, blockSize);
  }

  @Test
  void modelLifecycleWithRevisions() {
    String name = unique("Org/Model");
    Http.Res created = http.post("/v1/admin/models", card(name));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.raw().headers().firstValue("Location")).contains("/v1/admin/models/" + name);
    String etag = created.etag();
    assertThat(etag).matches("\"\\d+\"");
    JsonNode body = created.json();
    assertThat(body.get("schema_version").asInt()).isEqualTo(1);
    assertThat(body.get("routing_mode").asText()).isEqualTo("precise");
    assertThat(body.get("media_decoder").get("max_pixels").asLong()).isEqualTo(8192L * 8192L);

    Http.Res got = http.get("/v1/admin/models/" + name);
    assertThat(got.status()).isEqualTo(200);
    assertThat(got.etag()).isEqualTo(etag);
    assertThat(got.json()).isEqualTo(body);
    assertThat(http.get("/v1/admin/models/" + name + "-alias").json().get("name").asText())
        .isEqualTo(name);

    // stale If-Match is refused and changes nothing
    String updated = card(name).replace("\"context_length\":32768", "\"context_length\":8192");
    Http.Res ok = http.send("PUT", "/v1/admin/models/" + name, updated, Map.of("If-Match", etag));
    assertThat(ok.status()).as(ok.body()).isEqualTo(200);
    Http.Res stale =
        http.send("PUT", "/v1/admin/models/" + name, card(name), Map.of("If-Match", etag));
    assertThat(stale.status()).isEqualTo(409);
    assertThat(stale.json().at("/error/code").asText()).isEqualTo("revision_conflict");
    assertThat(http.get("/v1/admin/models/" + name).json().get("context_length").asInt())
        .isEqualTo(8192);

    // duplicate create
    Http.Res dup = http.post("/v1/admin/models", card(name));
    assertThat(dup.status()).isEqualTo(409);
    assertThat(dup.json().at("/error/message").asText()).contains("already exists");

    assertThat(http.get("/v1/admin/models").json().get("items").findValuesAsText("name"))
        .contains(name);
    assertThat(http.delete("/v1/admin/models/" + name).status()).isEqualTo(204);
    assertThat(http.get("/v1/admin/models/" + name).status()).isEqualTo(404);
    assertThat(http.delete("/v1/admin/models/" + name).status()).isEqualTo(404);
  }

  @Test
  void badInputGetsFieldPathsAndChangesNothing() {
    long before = http.get("/v1/admin/snapshot").json().get("revision").asLong();
    String name = unique("m");
    Http.Res unknownField =
        http.post("/v1/admin/models", card(name).replace("\"kv_block_size\"", "\"kv_blok_size\""));
    assertThat(unknownField.status()).isEqualTo(400);
    assertThat(unknownField.json().at("/error/fields/0/path").asText()).isEqualTo("kv_blok_size");
    assertThat(unknownField.json().at("/error/fields/0/message").asText())
        .isEqualTo("unknown field 'kv_blok_size'");

    Http.Res badEnum = http.post("/v1/admin/models", card(name).replace("\"vllm\"", "\"sglang\""));
    assertThat(badEnum.status()).isEqualTo(400);
    assertThat(badEnum.json().at("/error/fields/0/path").asText()).isEqualTo("backend");
    assertThat(badEnum.json().at("/error/fields/0/message").asText())
        .contains("expected one of vllm, trtllm");

    Http.Res badType =
        http.post(
            "/v1/admin/models",
            card(name).replace("\"max_bytes\":1048576", "\"max_bytes\":\"big\""));
    assertThat(badType.status()).isEqualTo(400);
    assertThat(badType.json().at("/error/fields/0/path").asText())
        .isEqualTo("media_decoder.max_bytes");

    Http.Res badScheme = http.post("/v1/admin/models", card(name).replace("\"gen2\"", "\"gen3\""));
    assertThat(badScheme.status()).isEqualTo(400);
    assertThat(badScheme.json().at("/error/fields/0/path").asText()).isEqualTo("mm_scheme");

    Http.Res invalid =
        http.post(
            "/v1/admin/models", card(name).replace("\"kv_block_size\":16", "\"kv_block_size\":0"));
    assertThat(invalid.status()).isEqualTo(400);
    assertThat(invalid.json().at("/error/code").asText()).isEqualTo("validation_failed");
    assertThat(invalid.json().at("/error/fields/0/path").asText()).isEqualTo("kv_block_size");

    assertThat(http.post("/v1/admin/models", "{not json").status()).isEqualTo(400);
    assertThat(http.post("/v1/admin/models", "[1,2]").status()).isEqualTo(400);
    assertThat(http.post("/v1/admin/models", card(name) + " trailing").status()).isEqualTo(400);

    String huge = "\"" + "x".repeat(70 * 1024) + "\"";
    Http.Res tooBig =
        http.post("/v1/admin/models", card(name).replace("{\"model_type\":\"qwen2_vl\"}", huge));
    assertThat(tooBig.status()).isEqualTo(413);
    assertThat(tooBig.json().at("/error/code").asText()).isEqualTo("payload_too_large");

    Http.Res unknownModel =
        http.post("/v1/admin/workers", worker(unique("w"), "no-such-model", 16));
    assertThat(unknownModel.status()).isEqualTo(400);
    assertThat(unknownModel.json().at("/error/fields/0/path").asText()).isEqualTo("model");

    Http.Res badWorker =
        http.post(
            "/v1/admin/workers",
            worker("bad/id", "x", 16)
                .replace("http://10.1.2.3:8000\"", "ftp://x\"")
                .replace("tcp://10.1.2.3:5557", "nope"));
    assertThat(badWorker.status()).isEqualTo(400);
    assertThat(badWorker.json().at("/error/fields").findValuesAsText("path"))
        .contains("id", "base_url", "kv_events.endpoint");

    assertThat(
            http.send("PUT", "/v1/admin/models/x", card("x"), Map.of("If-Match", "abc")).status())
        .isEqualTo(400);
    assertThat(http.get("/v1/admin/snapshot").json().get("revision").asLong()).isEqualTo(before);
  }

  @Test
  void workersAreCheckedAgainstTheirCard() {
    String model = unique("vl");
    assertThat(http.post("/v1/admin/models", card(model)).status()).isEqualTo(201);
    String id = unique("w");
    Http.Res mismatch = http.post("/v1/admin/workers", worker(id, model, 32));
    assertThat(mismatch.status()).isEqualTo(409);
    assertThat(mismatch.json().at("/error/code").asText()).isEqualTo("worker_card_mismatch");
    assertThat(mismatch.json().at("/error/reasons/0").asText())
        .contains("reports kv_block_size 32 but model '" + model + "' uses 16");
    assertThat(http.get("/v1/admin/workers/" + id).status()).isEqualTo(404);

    Http.Res ok = http.post("/v1/admin/workers", worker(id, model + "-alias", 16));
    assertThat(ok.status()).as(ok.body()).isEqualTo(201);
    assertThat(ok.json().get("model").asText()).isEqualTo(model);
    assertThat(http.post("/v1/admin/workers", worker(id, model, 16)).status())
        .as("duplicate id")
        .isEqualTo(409);

    Http.Res drained = http.put("/v1/admin/workers/" + id + "/state", "{\"state\":\"draining\"}");
    assertThat(drained.status()).as(drained.body()).isEqualTo(200);
    assertThat(drained.json().get("state").asText()).isEqualTo("draining");
    assertThat(
            http.get("/v1/admin/workers?model=" + model + "-alias")
                .json()
                .get("items")
                .findValuesAsText("id"))
        .containsExactly(id);
    Http.Res inUse = http.delete("/v1/admin/models/" + model);
    assertThat(inUse.status()).isEqualTo(409);
    assertThat(http.post("/v1/admin/workers/" + id + "/heartbeat", null).status()).isEqualTo(204);
    assertThat(http.delete("/v1/admin/workers/" + id).status()).isEqualTo(204);
    assertThat(http.post("/v1/admin/workers/" + id + "/heartbeat", null).status()).isEqualTo(404);
  }

  @Test
  void selfRegisteredWorkerDisappearsWhenItStopsHeartbeating() throws Exception {
    String model = unique("lease");
    http.post("/v1/admin/models", card(model));
    String id = unique("w");
    List<RegistryEvent> seen = new CopyOnWriteArrayList<>();
    try (AutoCloseable ignored =
        inProcess.addListener(
            e -> {
              if (e instanceof RegistryEvent.WorkerPut p && p.worker().id().equals(id)
                  || e instanceof RegistryEvent.WorkerRemoved r && r.worker().id().equals(id)) {
                seen.add(e);
              }
            })) {
      long t0 = System.nanoTime();
      Http.Res r =
          http.put(
              "/v1/admin/workers/" + id + "?lease=true",
              worker(id, model, 16).replace("\"labels\"", "\"lease_ttl_seconds\":2,\"labels\""));
      assertThat(r.status()).as(r.body()).isEqualTo(200);
      assertThat(r.json().get("lease_ttl_seconds").asInt()).isEqualTo(2);
      await()
          .atMost(Duration.ofSeconds(2 + 2))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> http.get("/v1/admin/workers/" + id).status() == 404);
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThan(Duration.ofMillis(1900));
      await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 2);
      assertThat(seen.get(0)).isInstanceOf(RegistryEvent.WorkerPut.class);
      assertThat(seen.get(1)).isInstanceOf(RegistryEvent.WorkerRemoved.class);
      assertThat(inProcess.worker(id)).isEmpty();
    }
    assertThat(
            http.post("/v1/admin/workers/" + id + "/heartbeat", null)
                .json()
                .at("/error/message")
                .asText())
        .contains("register again");
  }

  @Test
  void remoteClientFollowsTheChangeStream() throws Exception {
    String model = unique("remote");
    http.post("/v1/admin/models", card(model));
    try (RegistryClient remote =
        new RemoteRegistryClient(
            URI.create("http://127.0.0.1:" + port),
            Duration.ofMillis(100),
            Duration.ofSeconds(1),
            Duration.ofSeconds(3))) {
      assertThat(remote.model(model + "-alias")).isPresent();
      List<RegistryEvent> events = new CopyOnWriteArrayList<>();
      remote.addListener(events::add);
      await().atMost(Duration.ofSeconds(5)).until(remote::connected);
      String id = unique("w");
      http.post("/v1/admin/workers", worker(id, model, 16));
      await().atMost(Duration.ofSeconds(5)).until(() -> remote.workers(model).size() == 1);
      assertThat(remote.workers(model + "-alias").get(0).kvEvents().endpoint())
          .isEqualTo("tcp://10.1.2.3:5557");
      http.put("/v1/admin/workers/" + id + "/state", "{\"state\":\"draining\"}");
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> remote.worker(id).orElseThrow().state() == WorkerState.DRAINING);
      http.delete("/v1/admin/workers/" + id);
      await().atMost(Duration.ofSeconds(5)).until(() -> remote.worker(id).isEmpty());
      assertThat(events).filteredOn(e -> e instanceof RegistryEvent.WorkerRemoved).hasSize(1);
      assertThat(events).filteredOn(e -> e instanceof RegistryEvent.WorkerPut).hasSize(2);
      // the stream stays up across idle periods thanks to keep-alives (idle timeout 3 s)
      Thread.sleep(3500);
      assertThat(remote.connected()).isTrue();
      assertThat(remote.revision()).isEqualTo(inProcess.revision());
    }
  }

  @Test
  void apiKeyRecordsHoldDigestsAndReachClients() {
    String name = unique("team");
    String hash = "ab".repeat(32);
    Http.Res bad =
        http.post("/v1/admin/api-keys", "{\"name\":\"" + name + "\",\"hash\":\"sk-plaintext\"}");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().at("/error/fields/0/path").asText()).isEqualTo("hash");
    Http.Res created =
        http.post(
            "/v1/admin/api-keys",
            "{\"name\":\""
                + name
                + "\",\"hash\":\""
                + hash.toUpperCase()
                + "\",\"allowed_models\":[\"m\"],\"requests_per_minute\":60}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.json().get("hash").asText()).isEqualTo(hash);
    assertThat(created.json().get("enabled").asBoolean()).isTrue();
    assertThat(
            http.post("/v1/admin/api-keys", "{\"name\":\"" + name + "\",\"hash\":\"" + hash + "\"}")
                .status())
        .isEqualTo(409);
    await()
        .atMost(Duration.ofSeconds(2))
        .until(() -> inProcess.apiKeys().stream().anyMatch(k -> k.name().equals(name)));
    Http.Res disabled =
        http.put("/v1/admin/api-keys/" + name, "{\"hash\":\"" + hash + "\",\"enabled\":false}");
    assertThat(disabled.status()).isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(2))
        .until(
            () ->
                inProcess.apiKeys().stream()
                    .anyMatch(k -> k.name().equals(name) && !k.isEnabled()));
    assertThat(http.get("/v1/admin/api-keys").json().get("items").findValuesAsText("name"))
        .contains(name);
    assertThat(http.delete("/v1/admin/api-keys/" + name).status()).isEqualTo(204);
    assertThat(http.get("/v1/admin/api-keys/" + name).status()).isEqualTo(404);
  }

  @Test
  void workerRegistrarKeepsALeasedWorkerAliveAndRegistersAgain() throws Exception {
    String model = unique("reg");
    http.post("/v1/admin/models", card(model));
    String id = unique("w");
    WorkerInstance w = WorkerInstance.of(id, model, "http://10.9.9.9:8000", BackendKind.VLLM, 16);
    try (WorkerRegistrar registrar =
        new WorkerRegistrar(
            URI.create("http://127.0.0.1:" + port), null, w, Duration.ofSeconds(1))) {
      registrar.register();
      assertThat(http.get("/v1/admin/workers/" + id).json().get("lease_ttl_seconds").asInt())
          .isEqualTo(1);
      Thread.sleep(2500); // > 2 TTLs: only heartbeats keep it
      assertThat(http.get("/v1/admin/workers/" + id).status()).isEqualTo(200);
      assertThat(http.delete("/v1/admin/workers/" + id).status()).isEqualTo(204);
      await().atMost(Duration.ofSeconds(3)).until(() -> registrar.registrations() == 2);
      assertThat(http.get("/v1/admin/workers/" + id).status()).isEqualTo(200);
      registrar.drain();
      assertThat(http.get("/v1/admin/workers/" + id).json().get("state").asText())
          .isEqualTo("draining");
    }
    assertThat(http.get("/v1/admin/workers/" + id).status())
        .as("deregistered on close")
        .isEqualTo(404);

    WorkerInstance wrongBlocks =
        WorkerInstance.of(unique("w"), model, "http://h:1", BackendKind.VLLM, 64);
    try (WorkerRegistrar refused =
        new WorkerRegistrar(
            URI.create("http://127.0.0.1:" + port), null, wrongBlocks, Duration.ofSeconds(5))) {
      assertThatThrownBy(refused::register)
          .isInstanceOf(WorkerRegistrar.RegistrationRefusedException.class)
          .hasMessageContaining("reports kv_block_size 64 but model '" + model + "' uses 16");
    }
  }

  @Test
  void watchWithoutPositionAsksForAResync() {
    Http.Res r = http.send("GET", "/v1/admin/watch", null, Map.of("Accept", "text/event-stream"));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).contains("event:resync");
  }

  @Test
  void healthReportsTheStoreAndSchemasAreServed() {
    Http.Res h = http.get("/actuator/health");
    assertThat(h.status()).isEqualTo(200);
    assertThat(h.json().at("/components/registryStore/status").asText()).isEqualTo("UP");
    assertThat(h.json().at("/components/registryStore/details/store").asText()).isEqualTo("memory");
    Http.Res schema = http.get("/v1/admin/schema/model-card");
    assertThat(schema.status()).isEqualTo(200);
    assertThat(schema.json().get("title").asText()).contains("model card");
    assertThat(http.get("/v1/admin/schema/nope").status()).isEqualTo(404);
    Http.Res metrics = http.get("/actuator/prometheus");
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.body())
        .contains(
            "sightline_registry_models ",
            "sightline_registry_workers{state=\"ready\"}",
            "sightline_registry_client_connected 1.0");
  }
}
