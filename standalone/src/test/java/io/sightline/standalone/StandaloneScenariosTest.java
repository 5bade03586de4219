package io.sightline.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.sightline.sim.SimFleet;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The seeds' end-to-end scenarios over the whole embedded platform: the OpenAI endpoint of the
 * gateway, the router with its KV index fed by the simulated workers' real ZMQ events, and four
 * simulated vLLM workers with real prefix caches. Each scenario asserts the overlap the gateway
 * reports ({@code x-sightline-overlap: X/Y}), the chosen worker ({@code x-sightline-worker}) and,
 * where it follows, the engine's own {@code cached_tokens}.
 *
 * <p>Every scenario uses its own text and images, so scenarios never see each other's cache.
 */
@StandalonePlatformTest
class StandaloneScenariosTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String MODEL = "Qwen/Qwen2.5-VL-7B-Instruct";
  private static final AtomicInteger SEEDS = new AtomicInteger(1);
  private static final Map<String, byte[]> SERVED = new ConcurrentHashMap<>();
  private static HttpServer imageServer;

  @LocalServerPort int port;
  @Autowired SimFleet fleet;
  @Autowired MeterRegistry meters;

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @BeforeAll
  static void startImageServer() throws IOException {
    imageServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    imageServer.createContext(
        "/img/",
        exchange -> {
          byte[] body = SERVED.get(exchange.getRequestURI().getPath());
          if (body == null) {
            exchange.sendResponseHeaders(404, -1);
          } else {
            exchange.getResponseHeaders().add("Content-Type", "image/png");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
          }
          exchange.close();
        });
    imageServer.start();
  }

  @AfterAll
  static void stopImageServer() {
    imageServer.stop(0);
  }

  /** What the gateway said about one answered request. */
  record Routed(String worker, int overlap, int total, int cachedTokens, int promptTokens) {}

  // ---- scenarios ---------------------------------------------------------------------------

  @Test
  void textOnlyRepeated() throws Exception {
    ObjectNode body = chat(text("Explain KV cache reuse in one paragraph, scenario text-only."));
    Routed first = send(body);
    Routed second = send(body);
    assertThat(first.total()).isPositive();
    assertThat(second.worker()).isEqualTo(first.worker());
    assertThat(second.overlap()).isEqualTo(second.total());
    assertThat(second.cachedTokens()).isGreaterThan(first.cachedTokens());
  }

  @Test
  void oneImageRepeated() throws Exception {
    ObjectNode body = chat(image(dataUri(newImage(448, 448))), text("Describe the image."));
    Routed first = send(body);
    Routed second = send(body);
    assertThat(first.overlap()).isLessThan(first.total() / 2);
    assertThat(second.worker()).isEqualTo(first.worker());
    assertThat(second.overlap()).isEqualTo(second.total());
    assertThat(second.cachedTokens()).isGreaterThanOrEqualTo(second.total() * 16);
  }

  @Test
  void threeImagesRepeated() throws Exception {
    ObjectNode body =
        chat(
            image(dataUri(newImage(448, 448))),
            image(dataUri(newImage(336, 336))),
            image(dataUri(newImage(512, 384))),
            text("Compare the three images."));
    Routed first = send(body);
    Routed second = send(body);
    assertThat(second.worker()).isEqualTo(first.worker());
    assertThat(second.overlap()).isEqualTo(second.total());
    assertThat(second.cachedTokens()).isGreaterThan(first.cachedTokens());
  }

  @Test
  void twoIdenticalImages() throws Exception {
    String same = dataUri(newImage(448, 448));
    ObjectNode body = chat(image(same), image(same), text("Are these two images the same?"));
    Routed first = send(body);
    Routed second = send(body);
    assertThat(second.worker()).isEqualTo(first.worker());
    assertThat(second.overlap()).isEqualTo(second.total());
  }

  @Test
  void staircaseOfImagesRaisesOverlapStrictly() throws Exception {
    String a = dataUri(newImage(448, 448));
    String b = dataUri(newImage(448, 448));
    String c = dataUri(newImage(448, 448));
    String prompt = "Staircase: what changes from picture to picture?";
    Routed one = send(chat(image(a), text(prompt)));
    Routed two = send(chat(image(a), image(b), text(prompt)));
    Routed three = send(chat(image(a), image(b), image(c), text(prompt)));
    // Each step finds the previous step's images cached and adds one more.
    assertThat(two.overlap()).isGreaterThan(one.overlap());
    assertThat(three.overlap()).isGreaterThan(two.overlap());
    assertThat(two.worker()).isEqualTo(one.worker());
    assertThat(three.worker()).isEqualTo(two.worker());
  }

  @Test
  void differentImagesSamePromptDoNotMatch() throws Exception {
    String prompt = "What objects are in the picture? (different-images scenario)";
    Routed first = send(chat(image(dataUri(newImage(448, 448))), text(prompt)));
    Routed other = send(chat(image(dataUri(newImage(448, 448))), text(prompt)));
    // Only the blocks before the image (system prompt, role header) can match.
    assertThat(other.overlap()).isLessThan(other.total() / 4);
    assertThat(other.overlap()).isLessThan(first.total());
  }

  @Test
  void sameImagesDifferentPromptMatchUpToThePrompt() throws Exception {
    String img = dataUri(newImage(448, 448));
    // Questions long enough to fill whole blocks after the image: only full blocks are hashed.
    String filler = " Please be thorough and mention colours, shapes, layout and any text you see.";
    Routed first = send(chat(image(img), text("First question about this picture?" + filler)));
    Routed second =
        send(chat(image(img), text("Second, entirely different question here." + filler)));
    assertThat(second.worker()).isEqualTo(first.worker());
    assertThat(second.overlap()).isGreaterThan(second.total() / 2);
    assertThat(second.overlap()).isLessThan(second.total());
  }

  @Test
  void threeDistinctImagesSwappedStayAtTheTextPrefix() throws Exception {
    String a = dataUri(newImage(448, 448));
    String b = dataUri(newImage(448, 448));
    String c = dataUri(newImage(448, 448));
    String prompt = "Order matters: describe each picture in turn.";
    Routed textOnlyPrefix = send(chat(text(prompt + " (probe without images)")));
    Routed first = send(chat(image(a), image(b), image(c), text(prompt)));
    Routed swapped = send(chat(image(c), image(a), image(b), text(prompt)));
    // The first image differs, so nothing after the shared chat-template prefix can match.
    assertThat(swapped.overlap()).isLessThan(first.total() / 4);
    assertThat(swapped.overlap()).isLessThanOrEqualTo(textOnlyPrefix.total());
  }

  @Test
  void httpImagesFromALocalServerRepeat() throws Exception {
    String url = serve(newImage(448, 448));
    ObjectNode body = chat(image(url), text("Describe the fetched image."));
    Routed first = send(body);
    Routed second = send(body);
    assertThat(second.worker()).isEqualTo(first.worker());
    assertThat(second.overlap()).isEqualTo(second.total());
  }

  @Test
  void sameImageAsUrlAndAsDataUriHashesEqualWithMediaDecoding() throws Exception {
    byte[] png = newImage(448, 448);
    String prompt = "Same bytes, two transports.";
    Routed viaUrl = send(chat(image(serve(png)), text(prompt)));
    Routed viaData = send(chat(image(dataUri(png)), text(prompt)));
    assertThat(viaData.worker()).isEqualTo(viaUrl.worker());
    assertThat(viaData.overlap()).isEqualTo(viaData.total());
  }

  // ---- helpers -----------------------------------------------------------------------------

  private static byte[] newImage(int w, int h) {
    return TestImages.png(SEEDS.getAndIncrement(), w, h);
  }

  private static String dataUri(byte[] png) {
    return TestImages.dataUri(png);
  }

  private String serve(byte[] png) {
    String path = "/img/" + SEEDS.getAndIncrement() + ".png";
    SERVED.put(path, png);
    return "http://127.0.0.1:" + imageServer.getAddress().getPort() + path;
  }

  private static ObjectNode text(String t) {
    ObjectNode part = JSON.createObjectNode();
    part.put("type", "text");
    part.put("text", t);
    return part;
  }

  private static ObjectNode image(String url) {
    ObjectNode part = JSON.createObjectNode();
    part.put("type", "image_url");
    part.putObject("image_url").put("url", url);
    return part;
  }

  private static ObjectNode chat(ObjectNode... parts) {
    ObjectNode body = JSON.createObjectNode();
    body.put("model", MODEL);
    body.put("max_tokens", 8);
    ArrayNode messages = body.putArray("messages");
    ObjectNode user = messages.addObject();
    user.put("role", "user");
    user.putArray("content").addAll(List.of(parts));
    return body;
  }

  /** Sends one request, checks it succeeded, and waits until its KV events reached the router. */
  private Routed send(ObjectNode body) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
            .build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    String worker = response.headers().firstValue("x-sightline-worker").orElseThrow();
    String[] overlap =
        response.headers().firstValue("x-sightline-overlap").orElseThrow().split("/");
    JsonNode usage = JSON.readTree(response.body()).path("usage");
    awaitEventsDelivered();
    return new Routed(
        worker,
        Integer.parseInt(overlap[0].trim()),
        Integer.parseInt(overlap[1].trim().split(" ")[0]),
        usage.path("prompt_tokens_details").path("cached_tokens").asInt(0),
        usage.path("prompt_tokens").asInt());
  }

  /**
   * The router learns about cached blocks from the workers' ZMQ events, asynchronously: flush the
   * workers' publishers, then wait until the router's applied-events counter stops moving.
   */
  private void awaitEventsDelivered() throws InterruptedException {
    fleet.workers().forEach(w -> w.flushEvents());
    double last = -1;
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (System.nanoTime() < deadline) {
      double applied =
          meters.find("sightline.events.applied").counters().stream()
              .mapToDouble(c -> c.count())
              .sum();
      if (applied == last) {
        return;
      }
      last = applied;
      Thread.sleep(60);
    }
  }
}
