package io.sightline.bench.gateway;

import io.sightline.gateway.GatewayApplication;
import io.sightline.gateway.catalog.ModelCatalog;
import io.sightline.router.api.Explanation;
import io.sightline.router.api.ReleaseRequest;
import io.sightline.router.api.RouteDecision;
import io.sightline.router.api.RouteRequest;
import io.sightline.router.api.RoutingService;
import io.sightline.router.api.WorkerRef;
import io.sightline.sim.SimOptions;
import io.sightline.sim.SimulatedWorker;
import io.sightline.sim.engine.TimingModel;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What the gateway adds to a request, next to nginx doing plain reverse proxying of the same worker
 * in the same run (issue 8 "Done when": gateway-added latency p50/p99 and throughput).
 *
 * <p>One zero-delay worker-sim (vLLM dialect, {@code TimingModel} with infinite speed-up) is
 * reached three ways: {@code direct}, through {@code nginx} (Debian package; {@code proxy_pass}
 * with upstream keep-alive, one worker process, buffering off) and through the {@code gateway}
 * (full pipeline: auth off, body cap, JSON parse, media scan, route, vLLM shaping, proxy with
 * circuit breaker, usage parsing, release). The router here is a trivial single-worker {@link
 * RoutingService} so the figure is the gateway's own cost; KV-aware routing cost is measured by the
 * router's benchmarks. Requests are small non-streaming chats (max_tokens 4) over HTTP/1.1
 * keep-alive. All three share the JVM's two cores with the client, so compare ratios, not absolute
 * numbers.
 *
 * <p>Run from the module class path (the gateway is a {@code provided} dependency), e.g. {@code
 * java -cp "$(cat bench/target/cp.txt):bench/target/classes" org.openjdk.jmh.Main GatewayOverhead
 * -f 1 -wi 2 -i 3 -w 2s -r 3s} — see docs/benchmarks.md "Gateway".
 *
 * <p>The forks run with {@code jdk.httpclient.enableAllMethodRetry}: the JDK 25 {@code HttpClient}
 * has a race in its HTTP/1.1 pool (JDK-8357639) — the cleanup subscriber it attaches to a
 * connection returned to the pool is registered asynchronously and can still be reading when the
 * connection is taken out again, so when the server answers within microseconds it swallows the
 * next response and the exchange fails with "Data received while in pool". It needs a server that
 * fast (the zero-delay worker reached directly, or nginx serving a static response; about one
 * request in 10^5 with four clients), so without the property the {@code direct} throughput run
 * failed. The client already retries such a failure (no byte of the response received on a reused
 * connection) for GET; the property extends that to these POSTs. A retried request is served twice
 * by the worker; {@link #tearDown} prints how many requests the worker served next to how many the
 * client completed, so the duplicates are visible.
 */
@State(Scope.Benchmark)
@Fork(jvmArgsAppend = "-Djdk.httpclient.enableAllMethodRetry=true")
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class GatewayOverheadBenchmark {
  static final String MODEL = "bench-model";
  static final String BODY =
      "{\"model\":\""
          + MODEL
          + "\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"Say hello to the"
          + " benchmark.\"}]}";

  /** direct | nginx | gateway. */
  @Param({"direct", "nginx", "gateway"})
  public String target;

  private SimulatedWorker worker;
  private ConfigurableApplicationContext gateway;
  private Process nginx;
  private Path nginxDir;
  private HttpClient client;
  private HttpRequest request;
  private final AtomicLong completed = new AtomicLong();

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    worker =
        SimulatedWorker.start(
            SimOptions.defaults()
                .withServedModelName(MODEL)
                .withTiming(TimingModel.DEFAULT.withSpeedup(Double.POSITIVE_INFINITY)));
    String url =
        switch (target) {
          case "direct" -> worker.baseUrl();
          case "nginx" -> startNginx(worker.port());
          case "gateway" -> startGateway(worker.baseUrl());
          default -> throw new IllegalArgumentException(target);
        };
    client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    request =
        HttpRequest.newBuilder(URI.create(url + "/v1/chat/completions"))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(BODY))
            .build();
    // Fail fast on a broken set-up rather than measuring error pages.
    HttpResponse<String> probe = client.send(request, HttpResponse.BodyHandlers.ofString());
    if (probe.statusCode() != 200) {
      throw new IllegalStateException(
          target + " answered " + probe.statusCode() + ": " + probe.body());
    }
  }

  private String startGateway(String workerUrl) {
    BenchWiring.workerUrl = workerUrl;
    gateway =
        new SpringApplicationBuilder(GatewayApplication.class, BenchWiring.class)
            .properties(
                "server.port=0",
                "logging.level.root=WARN",
                "management.health.redis.enabled=false",
                // Only the gateway is measured: no in-JVM router engine or event ingestion
                // running beside it (the single-worker router below stands in).
                "sightline.router.enabled=false",
                "sightline.ingest.enabled=false",
                "spring.main.banner-mode=off")
            .run();
    return "http://127.0.0.1:" + gateway.getEnvironment().getProperty("local.server.port");
  }

  private String startNginx(int workerPort) throws IOException, InterruptedException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    nginxDir = Files.createTempDirectory("sightline-nginx");
    Files.createDirectories(nginxDir.resolve("logs"));
    Path conf = nginxDir.resolve("nginx.conf");
    Files.writeString(
        conf,
        """
        daemon off;
        worker_processes 1;
        error_log %1$s/logs/error.log warn;
        pid %1$s/nginx.pid;
        events { worker_connections 1024; }
        http {
          access_log off;
          client_body_temp_path %1$s/body;
          proxy_temp_path %1$s/proxy;
          fastcgi_temp_path %1$s/fastcgi;
          uwsgi_temp_path %1$s/uwsgi;
          scgi_temp_path %1$s/scgi;
          upstream worker { server 127.0.0.1:%2$d; keepalive 64; }
          server {
            listen 127.0.0.1:%3$d;
            client_max_body_size 32m;
            location / {
              proxy_pass http://worker;
              proxy_http_version 1.1;
              proxy_set_header Connection "";
              proxy_buffering off;
            }
          }
        }
        """
            .formatted(nginxDir, workerPort, port));
    nginx =
        new ProcessBuilder("nginx", "-p", nginxDir.toString(), "-c", conf.toString())
            .redirectErrorStream(true)
            .redirectOutput(nginxDir.resolve("logs/stdout.log").toFile())
            .start();
    for (int i = 0; i < 100; i++) {
      try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
        return "http://127.0.0.1:" + port;
      } catch (IOException e) {
        Thread.sleep(50);
      }
    }
    throw new IllegalStateException("nginx did not start; see " + nginxDir.resolve("logs"));
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    if (gateway != null) {
      gateway.close();
    }
    if (nginx != null) {
      nginx.destroy();
      nginx.waitFor(5, TimeUnit.SECONDS);
    }
    if (worker != null) {
      // Every request sent (probe included) reaches the worker once, unless the client retried it.
      System.out.printf(
          "%n[%s] requests completed by the client: %d (+1 probe), served by the worker: %d%n",
          target, completed.get(), worker.engine().requestsFinished());
      worker.close();
    }
  }

  /** Latency distribution of one request at a time (p50/p99 from JMH's sample mode). */
  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @Threads(1)
  public int latency() throws Exception {
    return send();
  }

  /** Requests per second with four concurrent clients. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Threads(4)
  public int throughput() throws Exception {
    return send();
  }

  private int send() throws IOException, InterruptedException {
    HttpResponse<byte[]> r = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(target + " answered " + r.statusCode());
    }
    completed.incrementAndGet();
    return r.body().length;
  }

  /** The gateway's collaborators for this benchmark: one model, one worker. */
  @Configuration(proxyBeanMethods = false)
  public static class BenchWiring {
    static volatile String workerUrl;
    private static final AtomicLong ids = new AtomicLong();

    @Bean
    RoutingService singleWorkerRouter() {
      return new RoutingService() {
        @Override
        public RouteDecision route(RouteRequest request) {
          return new RouteDecision(
              "b" + ids.incrementAndGet(),
              new WorkerRef("sim-0", 0, workerUrl, "vllm"),
              1,
              0,
              List.of(),
              new Explanation(MODEL, "approximate", null, 16, 16, 0, List.of()));
        }

        @Override
        public RouteDecision explain(RouteRequest request) {
          return route(request);
        }

        @Override
        public void release(ReleaseRequest request) {}
      };
    }

    @Bean
    ModelCatalog singleModelCatalog() {
      ModelCatalog.ServedModel model = new ModelCatalog.ServedModel(MODEL, "vllm", false, 0);
      return new ModelCatalog() {
        @Override
        public List<ServedModel> models() {
          return List.of(model);
        }

        @Override
        public Optional<ServedModel> find(String name) {
          return MODEL.equals(name) ? Optional.of(model) : Optional.empty();
        }

        @Override
        public Optional<WorkerEndpoint> worker(String workerId) {
          return Optional.of(new WorkerEndpoint("sim-0", workerUrl, "vllm"));
        }
      };
    }
  }
}
