package io.sightline.router.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sightline.prompt.hf.testing.TestModels;
import io.sightline.registry.client.LocalRegistryClient;
import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.HfSource;
import io.sightline.registry.model.KvEventSource;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.RoutingMode;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.store.InMemoryRegistryStore;
import io.sightline.registry.store.RegistryStore;
import io.sightline.router.api.Explanation;
import io.sightline.router.api.ReleaseRequest;
import io.sightline.router.api.ResolvedImage;
import io.sightline.router.api.RouteDecision;
import io.sightline.router.api.RouteRequest;
import io.sightline.router.api.RouterJson;
import io.sightline.router.engine.RouterEngine;
import io.sightline.router.engine.RouterMetrics;
import io.sightline.router.engine.WorkerMetricsSource;
import io.sightline.router.ingest.BridgeOwnership;
import io.sightline.router.ingest.EventIngestion;
import io.sightline.router.ingest.InProcessKvEventBus;
import io.sightline.router.ingest.IngestMetrics;
import io.sightline.router.model.ModelRuntimes;
import io.sightline.router.state.InMemoryStateHub;
import io.sightline.routing.expansion.MmScheme;
import io.sightline.routing.index.IndexConfig;
import io.sightline.routing.multimodal.MmHashes;
import io.sightline.routing.selection.LoadTracker;
import io.sightline.routing.selection.RouterConfig;
import io.sightline.sim.Dialect;
import io.sightline.sim.SimOptions;
import io.sightline.sim.SimulatedWorker;
import io.sightline.sim.engine.TimingModel;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Image-aware routing end to end in precise mode: the router loads Qwen2.5-VL's tokenizer, chat
 * template and processor spec from the model card; two simulated vLLM workers (worker-sim, same
 * model files) serve requests whose images carry the router's mm_hash as vLLM multimodal uuid,
 * publish real ZMQ KV events, and ingestion feeds them into the router's index. With predictions
 * switched off, every overlap below comes from the workers' own events: the same picture matches
 * all its blocks on the worker that prefilled it, a different picture of the same size matches only
 * the text before it.
 */
@Timeout(120)
class PreciseMultimodalRoutingTest {

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void tearDown() {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      try {
        closeables.get(i).close();
      } catch (Exception e) {
        // best effort
      }
    }
  }

  static String pngDataUri(int w, int h, Color color) throws Exception {
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    var g = img.createGraphics();
    g.setColor(color);
    g.fillRect(0, 0, w, h);
    g.dispose();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ImageIO.write(img, "png", out);
    return "data:image/png;base64," + Base64.getEncoder().encodeToString(out.toByteArray());
  }

  /** The request as the gateway forwards it to vLLM: image part with the router's uuid. */
  static ObjectNode body(String text, String imageUrl, long mmHash) {
    ObjectNode body = RouterJson.mapper().createObjectNode().put("model", "qwen");
    body.put("max_tokens", 2);
    ArrayNode content =
        body.putArray("messages").addObject().put("role", "user").putArray("content");
    content.addObject().put("type", "text").put("text", text);
    ObjectNode image = content.addObject().put("type", "image_url");
    image.putObject("image_url").put("url", imageUrl);
    image.put("uuid", MmHashes.forwardable(mmHash));
    return body;
  }

  static WorkerInstance registered(SimulatedWorker w) {
    return new WorkerInstance(
        null,
        w.workerId(),
        "qwen",
        null,
        w.baseUrl(),
        BackendKind.VLLM,
        1,
        w.options().effectiveBlockSize(),
        KvEventSource.zmq(w.eventEndpoint(), w.replayEndpoint()),
        null,
        Map.of(),
        null,
        null);
  }

  @Test
  void sameImageOverlapsFromRealEventsDifferentImageDoesNot() throws Exception {
    Path model = TestModels.dir("qwen2_5_vl");
    List<SimulatedWorker> sims = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      SimulatedWorker w =
          SimulatedWorker.start(
              SimOptions.defaults()
                  .withDialect(Dialect.VLLM)
                  .withModelDir(model)
                  .withServedModelName("qwen")
                  .withHashSeed("0")
                  .withTiming(TimingModel.DEFAULT.withSpeedup(Double.POSITIVE_INFINITY)));
      closeables.add(w);
      sims.add(w);
    }
    int blockSize = sims.get(0).options().effectiveBlockSize();
    RegistryStore store = new InMemoryRegistryStore();
    store.putModel(
        new ModelCard(
                null,
                "qwen",
                null,
                BackendKind.VLLM,
                HfSource.directory(model.toString()),
                "qwen2_5_vl",
                null,
                blockSize,
                MmScheme.GEN2,
                null,
                RoutingMode.PRECISE,
                null,
                null)
            .withDefaults(),
        RegistryStore.ANY_REVISION);
    LocalRegistryClient registry =
        new LocalRegistryClient(
            store, Duration.ofMillis(50), Duration.ofMillis(500), Duration.ofMillis(200));
    closeables.add(registry);
    ModelRuntimes runtimes =
        new ModelRuntimes(
            registry,
            new ModelRuntimes.Options(
                IndexConfig.DEFAULTS, true, Files.createTempDirectory("hf-"), 16));
    closeables.add(runtimes);
    runtimes.start();
    InMemoryStateHub hub = new InMemoryStateHub();
    // predictions off: overlaps can only come from the workers' KV events
    RouterConfig noPredictions =
        new RouterConfig(1.0, 1.0, 0.0, 0.0, true, true, true, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 600.0);
    RouterEngine engine =
        new RouterEngine(
            registry,
            runtimes,
            new LoadTracker(),
            hub.load("r", 5_000),
            hub.predictions("r"),
            WorkerMetricsSource.NONE,
            new RouterMetrics(new SimpleMeterRegistry()),
            new RouterEngine.Settings("r", noPredictions, false));
    EventIngestion ingestion =
        new EventIngestion(
            registry,
            new InProcessKvEventBus(),
            runtimes,
            BridgeOwnership.all(),
            null,
            IngestMetrics.standalone(),
            EventIngestion.Settings.defaults(),
            http);
    closeables.add(ingestion);
    ingestion.start();
    for (SimulatedWorker w : sims) {
      store.putWorker(registered(w), RegistryStore.ANY_REVISION);
    }

    String catUrl = pngDataUri(448, 448, Color.ORANGE);
    String dogUrl = pngDataUri(448, 448, Color.BLUE);
    long cat = MmHashes.ofUrl(catUrl);
    long dog = MmHashes.ofUrl(dogUrl);
    String text = "Describe this picture for a product catalogue, with all the details you see.";
    RouteRequest catReq =
        new RouteRequest(
            "qwen", body(text, catUrl, cat), List.of(new ResolvedImage(cat, 448, 448)), true);
    RouteRequest dogReq =
        new RouteRequest(
            "qwen", body(text, dogUrl, dog), List.of(new ResolvedImage(dog, 448, 448)), true);

    awaitWorkers(engine, catReq, 2);
    RouteDecision first = engine.route(catReq);
    assertThat(first.explanation().mode()).isEqualTo("precise");
    assertThat(first.explanation().fallbackReason()).isNull();
    assertThat(first.explanation().imageTokens()).isEqualTo(256);
    assertThat(first.overlapBlocks()).isZero();
    int cached = send(first, catReq);
    engine.release(new ReleaseRequest(first.routingId(), cached));
    for (SimulatedWorker w : sims) {
      w.flushEvents();
    }

    String holder = first.worker().workerId();
    RouteDecision again = awaitOverlap(engine, catReq, first.totalBlocks());
    assertThat(again.worker().workerId()).isEqualTo(holder);
    assertThat(again.overlapBlocks()).isEqualTo(again.totalBlocks());

    RouteDecision other = engine.explain(dogReq);
    Explanation.Candidate onHolder =
        other.explanation().candidates().stream()
            .filter(c -> c.workerId().equals(holder))
            .findFirst()
            .orElseThrow();
    int textBlocksBeforeImage = onHolder.overlapBlocks();
    assertThat(textBlocksBeforeImage)
        .as("only the text before the picture is shared")
        .isGreaterThanOrEqualTo(1)
        .isLessThan(first.totalBlocks() / 4);

    // the dog goes to the other worker (no overlap anywhere beyond the shared text, less load)
    RouteDecision dogDecision = engine.route(dogReq);
    int dogCached = send(dogDecision, dogReq);
    engine.release(new ReleaseRequest(dogDecision.routingId(), dogCached));
    for (SimulatedWorker w : sims) {
      w.flushEvents();
    }
    RouteDecision dogAgain = awaitOverlap(engine, dogReq, dogDecision.totalBlocks());
    assertThat(dogAgain.worker().workerId()).isEqualTo(dogDecision.worker().workerId());
    assertThat(engine.explain(catReq).worker().workerId()).isEqualTo(holder);
  }

  private int send(RouteDecision d, RouteRequest r) throws Exception {
    HttpResponse<String> resp =
        http.send(
            HttpRequest.newBuilder(URI.create(d.worker().baseUrl() + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(r.body().toString()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(resp.statusCode()).as(resp.body()).isEqualTo(200);
    var usage = RouterJson.mapper().readTree(resp.body()).path("usage");
    return usage.path("prompt_tokens_details").path("cached_tokens").asInt(0);
  }

  private static void awaitWorkers(RouterEngine engine, RouteRequest r, int n) throws Exception {
    long deadline = System.currentTimeMillis() + 20_000;
    while (System.currentTimeMillis() < deadline) {
      try {
        if (engine.explain(r).explanation().candidates().size() == n) {
          return;
        }
      } catch (RuntimeException e) {
        // no workers yet
      }
      Thread.sleep(50);
    }
    throw new AssertionError("workers not registered");
  }

  private static RouteDecision awaitOverlap(RouterEngine engine, RouteRequest r, int blocks)
      throws Exception {
    long deadline = System.currentTimeMillis() + 20_000;
    RouteDecision d = engine.explain(r);
    while (d.overlapBlocks() < blocks && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
      d = engine.explain(r);
    }
    return d;
  }
}
