package io.sightline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.NotFoundException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionContentPart;
import com.openai.models.chat.completions.ChatCompletionContentPartImage;
import com.openai.models.chat.completions.ChatCompletionContentPartText;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.models.Model;
import io.sightline.gateway.support.ImageServer;
import io.sightline.prompt.hf.testing.TestModels;
import io.sightline.sim.WorkerSimProcess;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * End to end with nothing faked: the gateway with the embedded registry and the real router
 * (auto-configured in this JVM, as the standalone app runs them), two worker-sim <em>processes</em>
 * serving Qwen2.5-VL's real tokenizer and processor config, KV events flowing from the workers' ZMQ
 * sockets into the router's index, and the official OpenAI Java SDK as the client.
 */
@SpringBootTest(
    classes = GatewayApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      // The workers fetch image URLs themselves, so the test image host must be one they can
      // reach: loopback, explicitly opted in (everything else internal stays refused).
      "sightline.gateway.media.trusted-hosts[0]=127.0.0.1",
      "sightline.ingest.scrape.enabled=false"
    })
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class GatewayEndToEndTest {
  static final String MODEL = "qwen-vl";
  static final ObjectMapper JSON = new ObjectMapper();
  static final String TRT_MODEL = "qwen-trt";
  static WorkerSimProcess sims;
  static WorkerSimProcess trtSims;
  static ImageServer images;

  @LocalServerPort int port;
  List<String> workerIds = new ArrayList<>();

  @BeforeAll
  void startFleet() throws Exception {
    String dir = TestModels.dir("qwen2_5_vl").toString();
    sims =
        WorkerSimProcess.start(
            List.of(
                "--workers",
                "2",
                "--model-dir",
                dir,
                "--served-model-name",
                MODEL,
                "--speedup",
                "Infinity"));
    trtSims =
        WorkerSimProcess.start(
            List.of(
                "--workers", "1",
                "--dialect", "trtllm",
                "--model-dir", dir,
                "--served-model-name", TRT_MODEL,
                "--speedup", "Infinity"));
    images = new ImageServer().file("/hopper.jpg", "valid/pillow_hopper.jpg");
    ObjectNode card = JSON.createObjectNode();
    card.put("name", MODEL).put("backend", "vllm").put("kv_block_size", 16);
    card.put("routing_mode", "precise");
    card.putObject("hf").put("path", dir);
    admin("POST", "/v1/admin/models", card);
    for (JsonNode w : sims.workers()) {
      ObjectNode worker = JSON.createObjectNode();
      worker.put("id", w.path("id").asText());
      worker.put("model", MODEL);
      worker.put("base_url", w.path("base_url").asText());
      worker.put("dialect", "vllm");
      worker.put("kv_block_size", w.path("block_size").asInt());
      ObjectNode events = worker.putObject("kv_events");
      events.put("kind", "zmq").put("endpoint", w.path("kv_events").asText());
      if (w.hasNonNull("kv_replay")) {
        events.put("replay_endpoint", w.path("kv_replay").asText());
      }
      admin("POST", "/v1/admin/workers", worker);
      workerIds.add(w.path("id").asText());
    }
    JsonNode trt = trtSims.workers().get(0);
    ObjectNode trtCard = JSON.createObjectNode();
    trtCard.put("name", TRT_MODEL).put("backend", "trtllm");
    trtCard.put("kv_block_size", trt.path("block_size").asInt());
    trtCard.put("routing_mode", "approximate");
    trtCard.putObject("hf").put("path", dir);
    admin("POST", "/v1/admin/models", trtCard);
    ObjectNode trtWorker = JSON.createObjectNode();
    trtWorker.put("id", trt.path("id").asText());
    trtWorker.put("model", TRT_MODEL);
    trtWorker.put("base_url", trt.path("base_url").asText());
    trtWorker.put("dialect", "trtllm");
    trtWorker.put("kv_block_size", trt.path("block_size").asInt());
    admin("POST", "/v1/admin/workers", trtWorker);
    // The router learns about the workers through the registry watch.
    long deadline = System.currentTimeMillis() + 30_000;
    while (true) {
      try {
        client().chat().completions().create(textChat("warm up"));
        break;
      } catch (RuntimeException e) {
        if (System.currentTimeMillis() > deadline) {
          throw e;
        }
        Thread.sleep(250);
      }
    }
  }

  @AfterAll
  static void stopFleet() {
    if (sims != null) {
      sims.close();
    }
    if (trtSims != null) {
      trtSims.close();
    }
    if (images != null) {
      images.close();
    }
  }

  void admin(String method, String path, JsonNode body) throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                  .timeout(Duration.ofSeconds(10))
                  .header("Content-Type", "application/json")
                  .method(method, HttpRequest.BodyPublishers.ofString(body.toString()))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(path + ": " + r.body()).isBetween(200, 299);
    }
  }

  OpenAIClient client() {
    return OpenAIOkHttpClient.builder()
        .baseUrl("http://127.0.0.1:" + port + "/v1")
        .apiKey("unused")
        .maxRetries(0)
        .timeout(Duration.ofSeconds(30))
        .build();
  }

  static ChatCompletionCreateParams textChat(String text) {
    return ChatCompletionCreateParams.builder()
        .model(MODEL)
        .addUserMessage(text)
        .maxCompletionTokens(8)
        .build();
  }

  static ChatCompletionCreateParams imageChat(String text, String url) {
    return ChatCompletionCreateParams.builder()
        .model(MODEL)
        .maxCompletionTokens(8)
        .addUserMessageOfArrayOfContentParts(
            List.of(
                ChatCompletionContentPart.ofImageUrl(
                    ChatCompletionContentPartImage.builder()
                        .imageUrl(
                            ChatCompletionContentPartImage.ImageUrl.builder().url(url).build())
                        .build()),
                ChatCompletionContentPart.ofText(
                    ChatCompletionContentPartText.builder().text(text).build())))
        .build();
  }

  static String dataUri(String resource) throws IOException {
    try (InputStream in = GatewayEndToEndTest.class.getResourceAsStream("/images/" + resource)) {
      return "data:image/jpeg;base64," + Base64.getEncoder().encodeToString(in.readAllBytes());
    }
  }

  record Routed(String worker, int overlap, int total, long cachedTokens, String text) {}

  static Routed routed(HttpResponseFor<ChatCompletion> r) {
    String[] overlap = r.headers().values("x-sightline-overlap").get(0).split("/");
    ChatCompletion c = r.parse();
    long cached =
        c.usage().flatMap(u -> u.promptTokensDetails()).flatMap(d -> d.cachedTokens()).orElse(-1L);
    return new Routed(
        r.headers().values("x-sightline-worker").get(0),
        Integer.parseInt(overlap[0]),
        Integer.parseInt(overlap[1]),
        cached,
        c.choices().get(0).message().content().orElse(""));
  }

  @Test
  void modelsComeFromTheRegistry() {
    assertThat(client().models().list().data().stream().map(Model::id)).contains(MODEL);
    assertThatThrownBy(
            () ->
                client()
                    .chat()
                    .completions()
                    .create(textChat("x").toBuilder().model("not-served").build()))
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void textChatNonStreamingAndStreaming() {
    Routed r =
        routed(
            client()
                .chat()
                .completions()
                .withRawResponse()
                .create(textChat("Tell me about the sea.")));
    assertThat(workerIds).contains(r.worker());
    assertThat(r.total()).isPositive();
    assertThat(r.text()).isNotEmpty();

    List<String> deltas = new ArrayList<>();
    try (StreamResponse<ChatCompletionChunk> s =
        client().chat().completions().createStreaming(textChat("Tell me about the sky."))) {
      s.stream()
          .forEach(ch -> ch.choices().forEach(c -> c.delta().content().ifPresent(deltas::add)));
    }
    assertThat(String.join("", deltas)).isNotEmpty();
  }

  @Test
  void repeatedDataUriImageLandsOnTheSameWorkerWithMoreCache() throws Exception {
    String uri = dataUri("valid/pillow_hopper.jpg");
    String q = "Describe this picture in one word, please, for test " + System.nanoTime();
    Routed first =
        routed(client().chat().completions().withRawResponse().create(imageChat(q, uri)));
    Thread.sleep(500); // KV events reach the router's index
    Routed second =
        routed(client().chat().completions().withRawResponse().create(imageChat(q, uri)));
    assertThat(second.worker()).isEqualTo(first.worker());
    assertThat(second.overlap()).isGreaterThan(first.overlap());
    assertThat(second.cachedTokens()).isGreaterThan(first.cachedTokens());
  }

  @Test
  void repeatedHttpImageLandsOnTheSameWorkerWithMoreCache() throws Exception {
    String url = "http://127.0.0.1:" + images.port() + "/hopper.jpg";
    String q = "What animal is this? test " + System.nanoTime();
    Routed first =
        routed(client().chat().completions().withRawResponse().create(imageChat(q, url)));
    Thread.sleep(500);
    Routed second =
        routed(client().chat().completions().withRawResponse().create(imageChat(q, url)));
    assertThat(second.worker()).isEqualTo(first.worker());
    assertThat(second.overlap()).isGreaterThan(first.overlap());
    assertThat(second.cachedTokens()).isGreaterThan(first.cachedTokens());
  }

  @Test
  void trtllmWorkersGetOnlyFieldsTheirStrictSchemaAccepts() throws Exception {
    // trtllm-serve (and worker-sim in its dialect) rejects unknown top-level fields with 400.
    String direct = trtSims.workers().get(0).path("base_url").asText();
    String body =
        "{\"model\":\""
            + TRT_MODEL
            + "\",\"max_tokens\":4,\"guided_json\":{},\"messages\":[{\"role\":\"user\","
            + "\"content\":\"hi\"}]}";
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(direct + "/v1/chat/completions"))
                  .timeout(Duration.ofSeconds(10))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    }
    // Through the gateway the same request (vLLM-only extra included) succeeds, with an image.
    HttpResponseFor<ChatCompletion> resp =
        client()
            .chat()
            .completions()
            .withRawResponse()
            .create(
                imageChat("What is this?", dataUri("valid/pillow_hopper.jpg")).toBuilder()
                    .model(TRT_MODEL)
                    .putAdditionalBodyProperty(
                        "guided_json", com.openai.core.JsonValue.from(java.util.Map.of()))
                    .build());
    assertThat(resp.statusCode()).isEqualTo(200);
    assertThat(resp.headers().values("x-sightline-worker"))
        .containsExactly(trtSims.workers().get(0).path("id").asText());
    assertThat(resp.parse().choices()).hasSize(1);
  }

  @Test
  void ssrfAndBadImagesAre400WithRealWorkersBehind() {
    assertThatThrownBy(
            () ->
                client()
                    .chat()
                    .completions()
                    .create(imageChat("x", "http://169.254.169.254/latest/meta-data/")))
        .isInstanceOf(BadRequestException.class);
    assertThatThrownBy(
            () ->
                client()
                    .chat()
                    .completions()
                    .create(imageChat("x", "data:image/png;base64,iVBORw0KGgo=")))
        .isInstanceOf(BadRequestException.class);
  }
}
