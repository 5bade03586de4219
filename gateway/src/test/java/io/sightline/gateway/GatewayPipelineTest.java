package io.sightline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.InternalServerException;
import com.openai.errors.NotFoundException;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.PermissionDeniedException;
import com.openai.errors.RateLimitException;
import com.openai.errors.UnauthorizedException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionContentPart;
import com.openai.models.chat.completions.ChatCompletionContentPartImage;
import com.openai.models.chat.completions.ChatCompletionContentPartText;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import com.openai.models.models.Model;
import io.sightline.gateway.auth.ApiKeyHasher;
import io.sightline.gateway.catalog.ModelCatalog;
import io.sightline.gateway.media.HostResolver;
import io.sightline.gateway.support.DyingWorker;
import io.sightline.gateway.support.FakeWorker;
import io.sightline.gateway.support.ImageServer;
import io.sightline.gateway.support.ScriptedRouter;
import io.sightline.router.api.ResolvedImage;
import io.sightline.router.api.RoutingException;
import io.sightline.router.api.RoutingService;
import io.sightline.router.api.WorkerRef;
import io.sightline.routing.multimodal.MmHashes;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The whole gateway (Spring context, Netty, every filter) driven by the official OpenAI Java SDK.
 * The router is a scripted one at the edge (this test is about the gateway's own behaviour), and
 * the workers are OpenAI-speaking fakes that can fail on demand: 500s, slowness, a TCP reset in the
 * middle of a stream. End-to-end runs against worker-sim and the real router are in {@code
 * GatewayEndToEndTest}.
 */
@SpringBootTest(
    classes = {GatewayApplication.class, GatewayPipelineTest.Beans.class},
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "sightline.gateway.auth.enabled=true",
      "sightline.gateway.auth.pepper=test-pepper",
      "sightline.gateway.max-body-size=256KB",
      "sightline.gateway.media.trusted-hosts[0]=media.test",
      "sightline.gateway.media.max-images-per-request=3",
      "sightline.gateway.upstream.first-byte-timeout=1s",
      "sightline.gateway.upstream.max-attempts=2"
    })
class GatewayPipelineTest {
  static final ApiKeyHasher HASHER = new ApiKeyHasher("test-pepper");
  static final ObjectMapper JSON = new ObjectMapper();
  static final FakeWorker W1 = start("w1");
  static final FakeWorker W2 = start("w2");
  static final FakeWorker BAD = start("bad");
  static final FakeWorker SLOW = start("slow");
  static final DyingWorker DYING = startDying();
  static final ImageServer IMAGES = startImages();
  static final ScriptedRouter ROUTER = new ScriptedRouter();

  static final Map<String, String> WORKERS =
      Map.of(
          "w1", W1.baseUrl(),
          "w2", W2.baseUrl(),
          "bad", BAD.baseUrl(),
          "slow", SLOW.baseUrl(),
          "dying", DYING.baseUrl());

  @LocalServerPort int port;
  @Autowired RoutingService routing;
  @Autowired io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry breakers;

  static FakeWorker start(String name) {
    try {
      return new FakeWorker(name);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static DyingWorker startDying() {
    try {
      return new DyingWorker();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static ImageServer startImages() {
    try {
      return new ImageServer().file("/hopper.png", "valid/pillow_hopper.png");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @DynamicPropertySource
  static void keys(DynamicPropertyRegistry r) {
    // All of a list's entries must come from one property source (lists do not merge).
    r.add("sightline.gateway.auth.keys[0].name", () -> "alice");
    r.add("sightline.gateway.auth.keys[0].models[0]", () -> "sim-vl");
    r.add("sightline.gateway.auth.keys[1].name", () -> "bob");
    r.add("sightline.gateway.auth.keys[2].name", () -> "limited");
    r.add("sightline.gateway.auth.keys[2].requests-per-minute", () -> "2");
    r.add("sightline.gateway.auth.keys[0].hash", () -> HASHER.hex("sk-alice"));
    r.add("sightline.gateway.auth.keys[1].hash", () -> HASHER.hex("sk-bob"));
    r.add("sightline.gateway.auth.keys[2].hash", () -> HASHER.hex("sk-limited"));
  }

  @AfterAll
  static void stop() throws IOException {
    W1.close();
    W2.close();
    BAD.close();
    SLOW.close();
    DYING.close();
    IMAGES.close();
  }

  @TestConfiguration
  static class Beans {
    @Bean
    RoutingService scriptedRouter() {
      return ROUTER;
    }

    @Bean
    ModelCatalog testCatalog() {
      return new ModelCatalog() {
        final List<ServedModel> models =
            List.of(
                new ServedModel("sim-trt", "trtllm", false, 1),
                new ServedModel("sim-vl", "vllm", false, 1));

        @Override
        public List<ServedModel> models() {
          return models;
        }

        @Override
        public Optional<ServedModel> find(String name) {
          return models.stream().filter(m -> m.id().equals(name)).findFirst();
        }

        @Override
        public Optional<WorkerEndpoint> worker(String workerId) {
          return Optional.ofNullable(WORKERS.get(workerId))
              .map(u -> new WorkerEndpoint(workerId, u, "vllm"));
        }
      };
    }

    @Bean
    HostResolver testResolver() {
      return host ->
          switch (host) {
            case "media.test" -> List.of(InetAddress.getByName("127.0.0.1"));
            case "evil.test" -> List.of(InetAddress.getByName("10.9.8.7"));
            default -> throw new UnknownHostException(host);
          };
    }
  }

  static WorkerRef ref(String id) {
    return new WorkerRef(id, 0, WORKERS.get(id), "vllm");
  }

  @BeforeEach
  void reset() {
    ROUTER.preference = List.of(ref("w1"), ref("w2"));
    ROUTER.failure = null;
    W1.cachedTokens = 32;
    BAD.mode = FakeWorker.Mode.FAIL_500;
  }

  OpenAIClient client(String key) {
    return OpenAIOkHttpClient.builder()
        .baseUrl("http://127.0.0.1:" + port + "/v1")
        .apiKey(key)
        .maxRetries(0)
        .timeout(Duration.ofSeconds(20))
        .build();
  }

  static ChatCompletionCreateParams textChat(String model) {
    return ChatCompletionCreateParams.builder().model(model).addUserMessage("Say hello.").build();
  }

  static ChatCompletionCreateParams imageChat(String model, String... urls) {
    List<ChatCompletionContentPart> parts = new ArrayList<>();
    parts.add(
        ChatCompletionContentPart.ofText(
            ChatCompletionContentPartText.builder().text("What is in the picture?").build()));
    for (String url : urls) {
      parts.add(
          ChatCompletionContentPart.ofImageUrl(
              ChatCompletionContentPartImage.builder()
                  .imageUrl(ChatCompletionContentPartImage.ImageUrl.builder().url(url).build())
                  .build()));
    }
    return ChatCompletionCreateParams.builder()
        .model(model)
        .addUserMessageOfArrayOfContentParts(parts)
        .build();
  }

  static byte[] image(String path) throws IOException {
    try (InputStream in = GatewayPipelineTest.class.getResourceAsStream("/images/" + path)) {
      return in.readAllBytes();
    }
  }

  static String dataUri(byte[] bytes) {
    return "data:image/png;base64," + Base64.getEncoder().encodeToString(bytes);
  }

  HttpResponse<String> raw(String path, String key, HttpRequest.BodyPublisher body)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json");
    if (key != null) {
      b.header("Authorization", "Bearer " + key);
    }
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(b.POST(body).build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  static void assertOpenAiError(String body, String type) throws IOException {
    JsonNode error = JSON.readTree(body).path("error");
    assertThat(error.path("message").asText()).isNotBlank();
    assertThat(error.path("type").asText()).isEqualTo(type);
    assertThat(error.has("param")).isTrue();
    assertThat(error.has("code")).isTrue();
    assertThat(body).doesNotContain("Exception").doesNotContain("at io.");
  }

  // ---- happy paths ----

  @Test
  void nonStreamingChatIsRoutedAndReleasedWithCachedTokens() {
    int releases = ROUTER.released.size();
    HttpResponseFor<ChatCompletion> resp =
        client("sk-bob").chat().completions().withRawResponse().create(textChat("sim-vl"));
    assertThat(resp.statusCode()).isEqualTo(200);
    assertThat(resp.headers().values("x-sightline-worker")).containsExactly("w1");
    assertThat(resp.headers().values("x-sightline-overlap")).containsExactly("3/10");
    ChatCompletion c = resp.parse();
    assertThat(c.choices().get(0).message().content()).contains("hello from w1");
    // The release runs when the exchange completes, which may be just after the client has the
    // answer.
    awaitRelease(releases, 32);
  }

  /** Waits for a release, after the first {@code before} ones, carrying {@code cachedTokens}. */
  static void awaitRelease(int before, int cachedTokens) {
    long deadline = System.currentTimeMillis() + 5_000;
    while (ROUTER.released.subList(before, ROUTER.released.size()).stream()
        .noneMatch(r -> Integer.valueOf(cachedTokens).equals(r.cachedTokens()))) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("no release with cached_tokens=" + cachedTokens + " within 5 s");
      }
      Thread.onSpinWait();
    }
  }

  @Test
  void streamingChatIsPassedThroughAndUsageIsCollected() throws Exception {
    W1.cachedTokens = 48;
    int releases = ROUTER.released.size();
    List<String> deltas = new ArrayList<>();
    try (StreamResponse<ChatCompletionChunk> stream =
        client("sk-bob").chat().completions().createStreaming(textChat("sim-vl"))) {
      stream.stream()
          .forEach(
              chunk -> {
                // The gateway asked the worker for usage; the client did not, so it sees none.
                assertThat(chunk.choices()).isNotEmpty();
                chunk.choices().forEach(ch -> ch.delta().content().ifPresent(deltas::add));
              });
    }
    assertThat(String.join("", deltas)).isEqualTo("hello from w1");
    JsonNode upstream = W1.received.get(W1.received.size() - 1);
    assertThat(upstream.path("stream_options").path("include_usage").asBoolean()).isTrue();
    awaitRelease(releases, 48);
  }

  @Test
  void completionsEndpointWorks() {
    Completion c =
        client("sk-bob")
            .completions()
            .create(
                CompletionCreateParams.builder()
                    .model("sim-vl")
                    .prompt("Once upon a time")
                    .maxTokens(5)
                    .build());
    assertThat(c.choices().get(0).text()).isEqualTo("hello from w1");
    assertThat(ROUTER.routed.get(ROUTER.routed.size() - 1).chat()).isFalse();
  }

  @Test
  void modelsComeFromTheCatalogFilteredByKey() {
    assertThat(client("sk-bob").models().list().data().stream().map(Model::id))
        .containsExactly("sim-trt", "sim-vl");
    assertThat(client("sk-alice").models().list().data().stream().map(Model::id))
        .containsExactly("sim-vl");
  }

  @Test
  void dataUriImagesAreHashedOverBytesAndForwardedAsUuids() throws Exception {
    byte[] png = image("valid/pillow_hopper.png");
    client("sk-bob").chat().completions().create(imageChat("sim-vl", dataUri(png)));
    assertThat(ROUTER.routed.get(ROUTER.routed.size() - 1).images())
        .containsExactly(new ResolvedImage(MmHashes.ofBytes(png), 128, 128));
    JsonNode part =
        W1.received.get(W1.received.size() - 1).path("messages").get(0).path("content").get(1);
    assertThat(part.path("uuid").asText()).isEqualTo(MmHashes.forwardable(MmHashes.ofBytes(png)));
    assertThat(part.path("image_url").path("url").asText()).isEqualTo(dataUri(png));
  }

  @Test
  void httpImagesAreSizedByRangeFetchAndHashedByUrl() {
    String url = "http://media.test:" + IMAGES.port() + "/hopper.png";
    client("sk-bob").chat().completions().create(imageChat("sim-vl", url));
    assertThat(ROUTER.routed.get(ROUTER.routed.size() - 1).images())
        .containsExactly(new ResolvedImage(MmHashes.ofUrl(url), 128, 128));
    assertThat(IMAGES.lastRange.get("/hopper.png")).isEqualTo("bytes=0-4095");
  }

  @Test
  void trtllmWorkersGetStrictBodies() {
    ROUTER.preference = List.of(new WorkerRef("w2", 0, W2.baseUrl(), "trtllm"));
    client("sk-bob")
        .chat()
        .completions()
        .create(
            textChat("sim-trt").toBuilder()
                .putAdditionalBodyProperty("guided_json", com.openai.core.JsonValue.from("x"))
                .build());
    JsonNode sent = W2.received.get(W2.received.size() - 1);
    assertThat(sent.has("guided_json")).isFalse();
    assertThat(sent.path("model").asText()).isEqualTo("sim-trt");
  }

  // ---- errors, each as the SDK's typed exception ----

  @Test
  void authErrors() {
    assertThatThrownBy(() -> client("sk-nobody").chat().completions().create(textChat("sim-vl")))
        .isInstanceOf(UnauthorizedException.class);
    assertThatThrownBy(() -> client("sk-alice").chat().completions().create(textChat("sim-trt")))
        .isInstanceOf(PermissionDeniedException.class);
  }

  @Test
  void missingKeyIs401() throws Exception {
    HttpResponse<String> r =
        raw("/v1/chat/completions", null, HttpRequest.BodyPublishers.ofString("{}"));
    assertThat(r.statusCode()).isEqualTo(401);
    assertOpenAiError(r.body(), "invalid_request_error");
  }

  @Test
  void unknownModelIs404() {
    assertThatThrownBy(() -> client("sk-bob").chat().completions().create(textChat("nope")))
        .isInstanceOf(NotFoundException.class)
        .hasMessageContaining("nope");
  }

  @Test
  void malformedJsonIs400() throws Exception {
    HttpResponse<String> r =
        raw("/v1/chat/completions", "sk-bob", HttpRequest.BodyPublishers.ofString("{\"model\": "));
    assertThat(r.statusCode()).isEqualTo(400);
    assertOpenAiError(r.body(), "invalid_request_error");
    assertThat(JSON.readTree(r.body()).path("error").path("code").asText())
        .isEqualTo("invalid_json");
  }

  @Test
  void oversizedBodiesAre413EvenWhenChunked() throws Exception {
    String big =
        "{\"model\":\"sim-vl\",\"messages\":[{\"role\":\"user\",\"content\":\""
            + "x".repeat(300_000)
            + "\"}]}";
    HttpResponse<String> sized =
        raw("/v1/chat/completions", "sk-bob", HttpRequest.BodyPublishers.ofString(big));
    assertThat(sized.statusCode()).isEqualTo(413);
    assertOpenAiError(sized.body(), "invalid_request_error");
    // No Content-Length: an InputStream publisher of unknown length is sent chunked.
    HttpResponse<String> chunked =
        raw(
            "/v1/chat/completions",
            "sk-bob",
            HttpRequest.BodyPublishers.ofInputStream(
                () -> new java.io.ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8))));
    assertThat(chunked.statusCode()).isEqualTo(413);
  }

  @Test
  void quotaExhaustionIs429WithRetryAfter() throws Exception {
    OpenAIClient limited = client("sk-limited");
    limited.chat().completions().create(textChat("sim-vl"));
    limited.chat().completions().create(textChat("sim-vl"));
    assertThatThrownBy(() -> limited.chat().completions().create(textChat("sim-vl")))
        .isInstanceOfSatisfying(
            RateLimitException.class,
            e -> assertThat(e.headers().values("retry-after")).isNotEmpty());
  }

  @Test
  void badImagesAre400() {
    OpenAIClient bob = client("sk-bob");
    assertThatThrownBy(
            () ->
                bob.chat().completions().create(imageChat("sim-vl", "data:image/png;base64,AAAA")))
        .isInstanceOf(BadRequestException.class);
    String ok = "http://media.test:" + IMAGES.port() + "/hopper.png";
    assertThatThrownBy(() -> bob.chat().completions().create(imageChat("sim-vl", ok, ok, ok, ok)))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("Too many images");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http://127.0.0.1/x.png",
        "http://10.0.0.1/x.png",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/x.png",
        "http://[fd00::1]/x.png",
        "http://evil.test/x.png",
        "REDIRECT"
      })
  void ssrfMatrixIsRefusedWith400(String url) {
    String target = url;
    if (url.equals("REDIRECT")) {
      IMAGES.redirect("/redir", "http://169.254.169.254/latest/meta-data/");
      target = "http://media.test:" + IMAGES.port() + "/redir";
    }
    String u = target;
    assertThatThrownBy(() -> client("sk-bob").chat().completions().create(imageChat("sim-vl", u)))
        .isInstanceOfSatisfying(
            BadRequestException.class, e -> assertThat(e.getMessage()).contains("refused"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "libpng_badadler.png",
        "libpng_badcrc.png",
        "libpng_huge_IDAT.png",
        "libpng_huge_iCCP_chunk.png",
        "pillow_broken.png",
        "pillow_broken_data_stream.png",
        "pillow_truncated_app14.jpg",
        "pillow_truncated_end_chunk.png",
        "pillow_truncated_image.png",
        "pillow_truncated_jpeg.jpg",
        "pillow_zero_width.gif"
      })
  void malformedImageCorpusGets400AndTheGatewayKeepsServing(String file) throws Exception {
    byte[] bytes = image("malformed/" + file);
    assertThatThrownBy(
            () -> client("sk-bob").chat().completions().create(imageChat("sim-vl", dataUri(bytes))))
        .isInstanceOf(BadRequestException.class);
    assertThat(client("sk-bob").chat().completions().create(textChat("sim-vl")).choices())
        .hasSize(1);
  }

  // ---- upstream failures ----

  @Test
  void failingWorkerIsRetriedOnAnotherBeforeTheFirstByteAndItsBreakerOpens() {
    ROUTER.preference = List.of(ref("bad"), ref("w2"));
    OpenAIClient bob = client("sk-bob");
    for (int i = 0; i < 6; i++) {
      HttpResponseFor<ChatCompletion> resp =
          bob.chat().completions().withRawResponse().create(textChat("sim-vl"));
      assertThat(resp.headers().values("x-sightline-worker")).containsExactly("w2");
      assertThat(resp.parse().choices().get(0).message().content()).contains("hello from w2");
    }
    // After minimum-number-of-calls failures the breaker is open: "bad" is no longer tried.
    int calls = BAD.received.size();
    bob.chat().completions().create(textChat("sim-vl"));
    assertThat(BAD.received.size()).isEqualTo(calls);
    assertThat(breakers.circuitBreaker("bad").getState())
        .isEqualTo(io.github.resilience4j.circuitbreaker.CircuitBreaker.State.OPEN);
  }

  @Test
  void allWorkersFailingIs502() {
    BAD.mode = FakeWorker.Mode.FAIL_500;
    ROUTER.preference = List.of(ref("bad"));
    assertThatThrownBy(() -> client("sk-bob").chat().completions().create(textChat("sim-vl")))
        .isInstanceOfSatisfying(
            InternalServerException.class, e -> assertThat(e.statusCode()).isIn(502, 503));
  }

  @Test
  void slowWorkerIs504() {
    SLOW.mode = FakeWorker.Mode.SLOW;
    ROUTER.preference = List.of(ref("slow"));
    assertThatThrownBy(() -> client("sk-bob").chat().completions().create(textChat("sim-vl")))
        .isInstanceOfSatisfying(
            OpenAIServiceException.class, e -> assertThat(e.statusCode()).isEqualTo(504));
  }

  @Test
  void noWorkerIs503() {
    ROUTER.failure = new RoutingException(503, "no_workers", "no healthy worker for sim-vl");
    assertThatThrownBy(() -> client("sk-bob").chat().completions().create(textChat("sim-vl")))
        .isInstanceOfSatisfying(
            InternalServerException.class, e -> assertThat(e.statusCode()).isEqualTo(503));
  }

  @Test
  void workerDyingMidStreamEndsTheStreamWithAnErrorEvent() throws Exception {
    ROUTER.preference = List.of(ref("dying"));
    String body =
        "{\"model\":\"sim-vl\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    HttpResponse<String> r =
        raw("/v1/chat/completions", "sk-bob", HttpRequest.BodyPublishers.ofString(body));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-sightline-worker")).contains("dying");
    List<String> events =
        r.body().lines().filter(l -> l.startsWith("data: ")).map(l -> l.substring(6)).toList();
    assertThat(events.get(0)).contains("partial");
    assertThat(events.get(events.size() - 2)).contains("\"error\"").contains("upstream_error");
    assertThat(events.get(events.size() - 1)).isEqualTo("[DONE]");
    // And the SDK surfaces it as an error rather than hanging.
    assertThatThrownBy(
            () -> {
              try (StreamResponse<ChatCompletionChunk> s =
                  client("sk-bob").chat().completions().createStreaming(textChat("sim-vl"))) {
                s.stream().forEach(ch -> {});
              }
            })
        .isInstanceOf(Exception.class);
  }

  @Test
  void unknownPathsAndMethodsGetOpenAiErrors() throws Exception {
    HttpResponse<String> r = raw("/v1/nope", "sk-bob", HttpRequest.BodyPublishers.ofString("{}"));
    assertThat(r.statusCode()).isEqualTo(404);
    assertOpenAiError(r.body(), "invalid_request_error");
  }

  @Test
  void probesAndMetricsAreExposed() throws Exception {
    client("sk-bob").chat().completions().create(textChat("sim-vl"));
    try (HttpClient http = HttpClient.newHttpClient()) {
      for (String probe : List.of("/actuator/health/liveness", "/actuator/health/readiness")) {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + probe)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(probe).isEqualTo(200);
        assertThat(r.body()).contains("UP");
      }
      String metrics =
          http.send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + port + "/actuator/prometheus"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(metrics)
          .contains("sightline_gateway_requests_total")
          .contains("sightline_gateway_cached_tokens_predicted")
          .contains("resilience4j_circuitbreaker_state")
          .doesNotContain("sk-bob")
          .doesNotContain(HASHER.hex("sk-bob"));
    }
  }
}
