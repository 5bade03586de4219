package io.sightline.bench.router;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import io.sightline.router.api.RoutingService;
import io.sightline.router.model.KvEventSink;
import io.sightline.router.web.HttpRoutingService;
import io.sightline.routing.event.KvEvent;
import io.sightline.routing.multimodal.MmHashes;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Route latency of the router (issue 7 "bench"), in-process ({@link RoutingService} bean) and
 * through the HTTP API ({@link HttpRoutingService} → {@code POST /v1/route}), on the real router
 * app in its embedded default.
 *
 * <p>Fleet: 8 workers of a text model (block size 16) whose index holds 2,000 cached prompts of 512
 * tokens fed as KV events, sharing 4 system prefixes of 256 tokens. Each request is 1,024 tokens:
 * one of the prefixes, a cached prompt's tail, and new tokens — so the path does hashing of 64
 * blocks, an index walk with real overlaps on several workers, and selection over 8 candidates.
 * {@code chat-image} sends a chat body with one resolved image instead (approximate encoding, 256
 * identity tokens). {@code routeAndRelease} measures a decision plus its release (two HTTP calls
 * over HTTP); {@code explain} one dry-run decision.
 *
 * <p>Run from the module class path (router-service is {@code provided}), e.g. {@code java -cp
 * "$(cat bench/target/cp.txt):bench/target/classes" org.openjdk.jmh.Main RouteLatency -f 1 -wi 2 -i
 * 3 -w 2s -r 2s}.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RouteLatencyBenchmark {
  private static final int BLOCK = 16;
  private static final int WORKERS = 8;

  @Param({"inprocess", "http"})
  public String transport;

  @Param({"completion-ids", "chat-image"})
  public String shape;

  private ConfigurableApplicationContext app;
  private RoutingService routing;
  private RouteRequest[] requests;
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    app =
        new SpringApplicationBuilder(RouterApplication.class)
            .properties(
                "server.port=0",
                "sightline.ingest.scrape.enabled=false",
                "sightline.router.replica-id=bench",
                "sightline.router.state.snapshot-interval=0s",
                "logging.level.io.sightline.router.engine.RouterEngine=WARN",
                "logging.level.root=WARN")
            .run();
    RegistryStore store = app.getBean(RegistryStore.class);
    store.putModel(ModelCard.of("m", BackendKind.VLLM, BLOCK), RegistryStore.ANY_REVISION);
    ModelCard vl =
        new ModelCard(
                null,
                "vl",
                null,
                BackendKind.VLLM,
                null,
                "qwen2_5_vl",
                null,
                BLOCK,
                null,
                null,
                null,
                null,
                null)
            .withDefaults();
    store.putModel(vl, RegistryStore.ANY_REVISION);
    for (int w = 0; w < WORKERS; w++) {
      store.putWorker(
          WorkerInstance.of("worker_" + w, "m", "http://w" + w, BackendKind.VLLM, BLOCK),
          RegistryStore.ANY_REVISION);
      store.putWorker(
          WorkerInstance.of("vl_worker_" + w, "vl", "http://v" + w, BackendKind.VLLM, BLOCK),
          RegistryStore.ANY_REVISION);
    }
    RoutingService local = app.getBean(RoutingService.class);
    KvEventSink sink = app.getBean(KvEventSink.class);
    SplittableRandom rnd = new SplittableRandom(42);
    int[][] prefixes = new int[4][256];
    for (int[] p : prefixes) {
      for (int i = 0; i < p.length; i++) {
        p[i] = rnd.nextInt(1, 150_000);
      }
    }
    int[][] cached = new int[2000][];
    long[] seq = new long[WORKERS];
    for (int c = 0; c < cached.length; c++) {
      int[] prompt = new int[512];
      System.arraycopy(prefixes[c % 4], 0, prompt, 0, 256);
      for (int i = 256; i < 512; i++) {
        prompt[i] = rnd.nextInt(1, 150_000);
      }
      cached[c] = prompt;
      int w = rnd.nextInt(WORKERS);
      long[] hashes = new long[prompt.length / BLOCK];
      for (int k = 0; k < hashes.length; k++) {
        hashes[k] = rnd.nextLong();
      }
      sink.apply(KvEvent.Stored.of("worker_" + w, 0, seq[w]++, hashes, null, prompt, BLOCK), -1);
    }
    requests = new RouteRequest[256];
    for (int r = 0; r < requests.length; r++) {
      int[] base = cached[rnd.nextInt(cached.length)];
      if (shape.equals("completion-ids")) {
        ObjectNode body = RouterJson.mapper().createObjectNode().put("model", "m");
        ArrayNode ids = body.putArray("prompt");
        for (int i = 0; i < 1024; i++) {
          ids.add(i < 512 ? base[i] : rnd.nextInt(1, 150_000));
        }
        requests[r] = new RouteRequest("m", body, List.of(), false);
      } else {
        ObjectNode body = RouterJson.mapper().createObjectNode().put("model", "vl");
        ObjectNode msg = body.putArray("messages").addObject().put("role", "user");
        ArrayNode content = msg.putArray("content");
        content
            .addObject()
            .put("type", "text")
            .put("text", "Describe the product in detail. #" + (r % 16));
        String url = "https://img.example/" + (r % 32) + ".jpg";
        content.addObject().put("type", "image_url").putObject("image_url").put("url", url);
        requests[r] =
            new RouteRequest(
                "vl", body, List.of(new ResolvedImage(MmHashes.ofUrl(url), 448, 448)), true);
      }
    }
    routing =
        transport.equals("http")
            ? new HttpRoutingService(
                "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port"),
                Duration.ofSeconds(2),
                Duration.ofSeconds(10))
            : local;
    // wait for the registry watch to deliver the fleet
    long deadline = System.currentTimeMillis() + 10_000;
    while (System.currentTimeMillis() < deadline) {
      try {
        routing.explain(requests[0]);
        break;
      } catch (RuntimeException e) {
        Thread.sleep(50);
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (app != null) {
      app.close();
    }
  }

  private RouteRequest nextRequest() {
    return requests[(next++) & (requests.length - 1)];
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @Threads(1)
  public RouteDecision explain() {
    return routing.explain(nextRequest());
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @Threads(1)
  public RouteDecision routeAndRelease() {
    RouteDecision d = routing.route(nextRequest());
    routing.release(new ReleaseRequest(d.routingId(), null));
    return d;
  }
}
