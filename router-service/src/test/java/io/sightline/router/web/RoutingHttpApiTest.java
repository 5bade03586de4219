package io.sightline.router.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.store.RegistryStore;
import io.sightline.router.RouterApplication;
import io.sightline.router.api.ReleaseRequest;
import io.sightline.router.api.ResolvedImage;
import io.sightline.router.api.RouteDecision;
import io.sightline.router.api.RouteRequest;
import io.sightline.router.api.RouterJson;
import io.sightline.router.api.RoutingException;
import io.sightline.router.api.RoutingService;
import io.sightline.router.engine.RouterEngine;
import io.sightline.router.model.KvEventSink;
import io.sightline.routing.event.KvEvent;
import io.sightline.routing.multimodal.MmHashes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The router app end to end over HTTP, in its embedded default (in-memory registry and state):
 * {@link HttpRoutingService} against {@code /v1/route}, {@code /v1/explain}, {@code /v1/release},
 * error mapping, and the Prometheus metrics.
 */
@SpringBootTest(
    classes = RouterApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "sightline.ingest.scrape.enabled=false",
      "sightline.router.replica-id=http-test",
      "management.endpoints.web.exposure.include=health,prometheus"
    })
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RoutingHttpApiTest {
  @LocalServerPort int port;
  @Autowired RegistryStore store;
  @Autowired KvEventSink sink;
  @Autowired RoutingService inProcess;

  HttpRoutingService client;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @BeforeAll
  void register() throws Exception {
    store.putModel(ModelCard.of("m", BackendKind.VLLM, 4), RegistryStore.ANY_REVISION);
    store.putWorker(
        WorkerInstance.of("worker_1", "m", "http://w1:8000", BackendKind.VLLM, 4),
        RegistryStore.ANY_REVISION);
    store.putWorker(
        WorkerInstance.of("worker_2", "m", "http://w2:8000", BackendKind.TRTLLM, 4),
        RegistryStore.ANY_REVISION);
    client =
        new HttpRoutingService(
            "http://127.0.0.1:" + port, Duration.ofSeconds(2), Duration.ofSeconds(10));
    long deadline = System.currentTimeMillis() + 5_000;
    while (System.currentTimeMillis() < deadline) {
      try {
        client.explain(request(new int[] {1, 2, 3, 4}));
        return;
      } catch (RoutingException e) {
        Thread.sleep(50); // registry watch not caught up yet
      }
    }
  }

  static RouteRequest request(int[] ids) {
    var body = RouterJson.mapper().createObjectNode().put("model", "m");
    var prompt = body.putArray("prompt");
    for (int id : ids) {
      prompt.add(id);
    }
    return new RouteRequest("m", body, List.of(new ResolvedImage(-7L, 10, 20)), false);
  }

  @Test
  void routeExplainAndReleaseOverHttpMatchInProcess() {
    assertThat(inProcess).isInstanceOf(RouterEngine.class);
    sink.apply(
        KvEvent.Stored.of(
            "worker_2", 0, 0, new long[] {1, 2}, null, new int[] {9, 8, 7, 6, 5, 4, 3, 2}, 4),
        -1);
    RouteRequest req = request(new int[] {9, 8, 7, 6, 5, 4, 3, 2, 1, 0});

    RouteDecision explained = client.explain(req);
    RouteDecision local = inProcess.explain(req);
    assertThat(explained.explanation()).isEqualTo(local.explanation());
    assertThat(explained.worker()).isEqualTo(local.worker());
    assertThat(explained.worker().workerId()).isEqualTo("worker_2");
    assertThat(explained.worker().dialect()).isEqualTo("trtllm");
    assertThat(explained.overlapBlocks()).isEqualTo(2);
    assertThat(explained.totalBlocks()).isEqualTo(2);
    assertThat(explained.forwardMmHashes()).containsExactly(MmHashes.forwardable(-7L));
    assertThat(explained.explanation().candidates()).hasSize(2);
    assertThat(explained.explanation().candidates().get(0).costTerms()).isNotEmpty();

    RouteDecision routed = client.route(req);
    assertThat(routed.worker().workerId()).isEqualTo("worker_2");
    assertThat(client.explain(req).explanation().candidates())
        .filteredOn(c -> c.workerId().equals("worker_2"))
        .singleElement()
        .satisfies(c -> assertThat(c.decodeLoad()).as("ceil(10 tokens / 4)").isEqualTo(3.0));
    client.release(new ReleaseRequest(routed.routingId(), 8));
    assertThat(client.explain(req).explanation().candidates())
        .filteredOn(c -> c.workerId().equals("worker_2"))
        .singleElement()
        .satisfies(c -> assertThat(c.decodeLoad()).isZero());
  }

  @Test
  void errorsKeepTheirStatusAndCode() throws Exception {
    RouteRequest unknown =
        new RouteRequest("nope", RouterJson.mapper().createObjectNode(), List.of(), false);
    assertThatThrownBy(() -> client.route(unknown))
        .isInstanceOfSatisfying(
            RoutingException.class,
            e -> {
              assertThat(e.status()).isEqualTo(404);
              assertThat(e.code()).isEqualTo("model_not_found");
            });

    HttpResponse<String> bad = post("/v1/route", "{not json");
    assertThat(bad.statusCode()).isEqualTo(400);
    JsonNode err = RouterJson.mapper().readTree(bad.body()).path("error");
    assertThat(err.path("code").asText()).isEqualTo("invalid_json");
    assertThat(bad.body()).doesNotContain("at io.sightline");

    assertThat(post("/v1/route", "").statusCode()).isEqualTo(400);
    // "chat" may be omitted: inferred from the body (messages → chat)
    HttpResponse<String> inferred =
        post("/v1/explain", "{\"model\":\"m\",\"body\":{\"model\":\"m\",\"prompt\":[1,2,3,4]}}");
    assertThat(inferred.statusCode()).as(inferred.body()).isEqualTo(200);
    HttpResponse<String> chat =
        post(
            "/v1/explain",
            "{\"model\":\"m\",\"body\":{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}");
    assertThat(chat.statusCode()).as(chat.body()).isEqualTo(200);
    assertThat(RouterJson.mapper().readTree(chat.body()).at("/explanation/mode").asText())
        .isEqualTo("approximate");
    assertThat(post("/v1/explain", "{\"model\":\"m\",\"body\":[1]}").statusCode()).isEqualTo(400);
    assertThat(post("/v1/release", "{}").statusCode()).isEqualTo(400);
    assertThat(post("/v1/release", "{\"routingId\":\"rt-unknown\"}").statusCode()).isEqualTo(200);
  }

  @Test
  void unreachableRouterIsA503() {
    HttpRoutingService dead =
        new HttpRoutingService("http://127.0.0.1:1", Duration.ofMillis(300), Duration.ofSeconds(1));
    assertThatThrownBy(() -> dead.explain(request(new int[] {1})))
        .isInstanceOfSatisfying(RoutingException.class, e -> assertThat(e.status()).isIn(503, 504));
  }

  @Test
  void prometheusShowsRoutingMetrics() throws Exception {
    client.route(request(new int[] {42, 43, 44, 45, 46}));
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/prometheus"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body())
        .contains("sightline_router_decisions_total{")
        .contains("outcome=\"routed\"")
        .contains("sightline_router_overlap_ratio_bucket")
        .contains("sightline_router_route_seconds");
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
