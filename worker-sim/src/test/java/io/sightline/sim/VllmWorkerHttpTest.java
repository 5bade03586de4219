package io.sightline.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.sim.engine.TimingModel;
import java.awt.Color;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** End-to-end over HTTP against a vLLM-dialect worker with the approximate tokenizer. */
class VllmWorkerHttpTest {
  static SimulatedWorker worker;
  static final String RED = TestImages.pngDataUri(448, 448, Color.RED);
  static final String BLUE = TestImages.pngDataUri(448, 448, Color.BLUE);

  @BeforeAll
  static void start() throws Exception {
    worker =
        SimulatedWorker.start(
            SimOptions.defaults()
                .withServedModelName("m")
                .withHashSeed("0")
                .withTiming(TimingModel.DEFAULT.withSpeedup(Double.POSITIVE_INFINITY))
                .withZmqPorts(-1, -1));
  }

  @AfterAll
  static void stop() {
    worker.close();
  }

  @Test
  void repeatedMultimodalRequestIsServedFromCache() throws Exception {
    ObjectNode body = SimClient.chat("m", "Describe the picture in detail, please.", 4, RED);
    JsonNode first = SimClient.post(worker.baseUrl() + "/v1/chat/completions", body).json();
    JsonNode second = SimClient.post(worker.baseUrl() + "/v1/chat/completions", body).json();
    int prompt = second.at("/usage/prompt_tokens").asInt();
    // 448x448 at the default 1024 px/token = 196 image tokens, plus the text.
    assertThat(prompt).isGreaterThan(196);
    assertThat(first.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isZero();
    int cached = second.at("/usage/prompt_tokens_details/cached_tokens").asInt();
    assertThat(cached).isGreaterThan(prompt - 16).isLessThan(prompt);
    assertThat(cached % 16).isZero();
    assertThat(second.at("/choices/0/message/content").asText())
        .isEqualTo(first.at("/choices/0/message/content").asText());
  }

  @Test
  void differentImageWithSameTextMisses() throws Exception {
    String text = "What colour dominates this image?";
    SimClient.post(worker.baseUrl() + "/v1/chat/completions", SimClient.chat("m", text, 2, RED));
    JsonNode other =
        SimClient.post(
                worker.baseUrl() + "/v1/chat/completions", SimClient.chat("m", text, 2, BLUE))
            .json();
    int prompt = other.at("/usage/prompt_tokens").asInt();
    int cached = other.at("/usage/prompt_tokens_details/cached_tokens").asInt();
    // Only blocks before the image (the role header) can match; the image and the text after
    // differ.
    assertThat(cached).isLessThan(32);
    assertThat(prompt).isGreaterThan(196);
  }

  @Test
  void uuidReplacesImageIdentity() throws Exception {
    ObjectNode a = SimClient.chat("m", "uuid test", 2, RED);
    ((ObjectNode) a.at("/messages/0/content/0")).put("uuid", "shared-id");
    ObjectNode b = SimClient.chat("m", "uuid test", 2, BLUE);
    ((ObjectNode) b.at("/messages/0/content/0")).put("uuid", "shared-id");
    SimClient.post(worker.baseUrl() + "/v1/chat/completions", a);
    JsonNode second = SimClient.post(worker.baseUrl() + "/v1/chat/completions", b).json();
    // Same uuid => same cache keys, although the pixels differ (vLLM trusts the caller's uuid).
    assertThat(second.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isGreaterThan(180);
    // A uuid-only reference (no data) resolves from the processor cache.
    ObjectNode c = SimClient.chat("m", "uuid test", 2, RED);
    ObjectNode part = (ObjectNode) c.at("/messages/0/content/0");
    part.put("uuid", "shared-id");
    part.putNull("image_url");
    assertThat(SimClient.post(worker.baseUrl() + "/v1/chat/completions", c).status())
        .isEqualTo(200);
    part.put("uuid", "never-seen");
    SimClient.Response unknown = SimClient.post(worker.baseUrl() + "/v1/chat/completions", c);
    assertThat(unknown.status()).isEqualTo(400);
  }

  @Test
  void streamingSendsChunksUsageAndDone() throws Exception {
    ObjectNode body = SimClient.chat("m", "stream please", 5);
    body.put("stream", true);
    body.putObject("stream_options").put("include_usage", true);
    SimClient.Response r = SimClient.post(worker.baseUrl() + "/v1/chat/completions", body);
    assertThat(r.status()).isEqualTo(200);
    String[] events = r.body().split("\n\n");
    assertThat(events[events.length - 1]).isEqualTo("data: [DONE]");
    // role chunk + 5 token chunks + usage chunk + [DONE]
    assertThat(events).hasSize(8);
    JsonNode usage =
        io.sightline.sim.http.Json.MAPPER.readTree(events[6].substring(6)).get("usage");
    assertThat(usage.get("completion_tokens").asInt()).isEqualTo(5);
    assertThat(usage.has("prompt_tokens_details")).isTrue();
  }

  @Test
  void completionsEndpointWorksWithTokenIds() throws Exception {
    ObjectNode body = io.sightline.sim.http.Json.MAPPER.createObjectNode();
    body.put("model", "m").put("max_tokens", 3);
    var ids = body.putArray("prompt");
    for (int i = 1; i <= 40; i++) {
      ids.add(i);
    }
    JsonNode first = SimClient.post(worker.baseUrl() + "/v1/completions", body).json();
    JsonNode second = SimClient.post(worker.baseUrl() + "/v1/completions", body).json();
    assertThat(first.at("/usage/prompt_tokens").asInt()).isEqualTo(40);
    assertThat(second.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isEqualTo(32);
    assertThat(second.at("/object").asText()).isEqualTo("text_completion");
  }

  @Test
  void badRequestsGetVllmShapedErrors() throws Exception {
    SimClient.Response bad = SimClient.post(worker.baseUrl() + "/v1/chat/completions", "{not json");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().at("/error/type").asText()).isEqualTo("BadRequestError");
    assertThat(bad.json().at("/error/code").asInt()).isEqualTo(400);
    SimClient.Response noModel =
        SimClient.post(worker.baseUrl() + "/v1/chat/completions", SimClient.chat("nope", "x", 1));
    assertThat(noModel.status()).isEqualTo(404);
    ObjectNode zero = SimClient.chat("m", "x", 1);
    zero.put("max_tokens", 0);
    assertThat(SimClient.post(worker.baseUrl() + "/v1/chat/completions", zero).status())
        .isEqualTo(400);
    SimClient.Response badImage =
        SimClient.post(
            worker.baseUrl() + "/v1/chat/completions",
            SimClient.chat("m", "x", 1, "data:image/png;base64,AAAA"));
    assertThat(badImage.status()).isEqualTo(400);
    ObjectNode huge = SimClient.chat("m", "x", 1_000_000);
    assertThat(SimClient.post(worker.baseUrl() + "/v1/chat/completions", huge).status())
        .isEqualTo(400);
    assertThat(SimClient.get(worker.baseUrl() + "/nope").status()).isEqualTo(404);
    assertThat(SimClient.get(worker.baseUrl() + "/health").status()).isEqualTo(200);
    assertThat(SimClient.get(worker.baseUrl() + "/v1/models").json().at("/data/0/id").asText())
        .isEqualTo("m");
  }
}
