package io.sightline.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.sim.engine.TimingModel;
import io.sightline.sim.http.Json;
import java.awt.Color;
import java.math.BigInteger;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** TensorRT-LLM dialect: strict schema, drained JSON events with partial blocks, JSON metrics. */
class TrtllmWorkerTest {
  static SimulatedWorker worker;

  @BeforeAll
  static void start() throws Exception {
    worker =
        SimulatedWorker.start(
            SimOptions.defaults()
                .withDialect(Dialect.TRTLLM)
                .withServedModelName("t")
                .withNumBlocks(64)
                .withTiming(TimingModel.DEFAULT.withSpeedup(Double.POSITIVE_INFINITY)));
  }

  @AfterAll
  static void stop() {
    worker.close();
  }

  @Test
  void unknownTopLevelFieldIsRejected() throws Exception {
    ObjectNode body = SimClient.chat("t", "hi", 2);
    body.putObject("multi_modal_uuids");
    SimClient.Response r = SimClient.post(worker.baseUrl() + "/v1/chat/completions", body);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().at("/error/message").asText()).contains("Extra inputs are not permitted");
    // Extra keys inside content parts are allowed (TRT-LLM's part dicts accept them).
    ObjectNode ok = SimClient.chat("t", "hi", 2, TestImages.pngDataUri(64, 64, Color.GREEN));
    ((ObjectNode) ok.at("/messages/0/content/0")).put("uuid", "ignored");
    assertThat(SimClient.post(worker.baseUrl() + "/v1/chat/completions", ok).status())
        .isEqualTo(200);
  }

  @Test
  void eventsAreDrainedWithPartialBlocksAndMmKeys() throws Exception {
    SimClient.post(worker.baseUrl() + "/kv_cache_events", "{}"); // drop earlier events
    String img = TestImages.pngDataUri(320, 320, Color.ORANGE);
    ObjectNode body = SimClient.chat("t", "What is in the image?", 2, img);
    JsonNode first = SimClient.post(worker.baseUrl() + "/v1/chat/completions", body).json();
    int prompt = first.at("/usage/prompt_tokens").asInt();
    JsonNode events = SimClient.post(worker.baseUrl() + "/kv_cache_events", "{}").json();
    assertThat(events.isArray()).isTrue();
    JsonNode stored = null;
    for (JsonNode e : events) {
      if (e.at("/data/type").asText().equals("stored")) {
        stored = e;
      }
    }
    assertThat(stored).isNotNull();
    JsonNode blocks = stored.at("/data/blocks");
    int tokens = 0;
    boolean sawMm = false;
    for (JsonNode b : blocks) {
      tokens += b.get("tokens").size();
      assertThat(b.get("type").asText()).isEqualTo("stored_block");
      assertThat(b.at("/tokens/0/type").asText()).isEqualTo("unique_token");
      assertThat(new BigInteger(b.get("block_hash").asText()).signum()).isNotNegative();
      sawMm |= !b.get("mm_keys").isEmpty();
    }
    // The last prompt token is never in a block; the tail block is partial.
    assertThat(tokens).isEqualTo(prompt - 1);
    assertThat(blocks.get(blocks.size() - 1).get("tokens").size()).isLessThanOrEqualTo(32);
    assertThat(sawMm).isTrue();
    assertThat(SimClient.post(worker.baseUrl() + "/kv_cache_events", "{}").json()).isEmpty();

    JsonNode second = SimClient.post(worker.baseUrl() + "/v1/chat/completions", body).json();
    assertThat(second.at("/usage/prompt_tokens_details/cached_tokens").asInt())
        .isEqualTo(prompt - 1);
  }

  @Test
  void restartResetsEventIdsWithCreated() throws Exception {
    worker.restart();
    JsonNode events = SimClient.post(worker.baseUrl() + "/kv_cache_events", "{}").json();
    assertThat(events.get(0).get("event_id").asLong()).isZero();
    assertThat(events.get(0).at("/data/type").asText()).isEqualTo("created");
    Set<Long> ids = new HashSet<>();
    SimClient.post(
        worker.baseUrl() + "/v1/completions", "{\"prompt\":\"a b c d e f g\",\"max_tokens\":1}");
    for (JsonNode e : SimClient.post(worker.baseUrl() + "/kv_cache_events", "{}").json()) {
      ids.add(e.get("event_id").asLong());
    }
    assertThat(ids).contains(1L);
  }

  @Test
  void metricsAreAJsonArrayOfIterationStats() throws Exception {
    JsonNode m = SimClient.get(worker.baseUrl() + "/metrics").json();
    assertThat(m.isArray()).isTrue();
    JsonNode stat = m.get(m.size() - 1);
    assertThat(stat.has("numActiveRequests")).isTrue();
    assertThat(stat.has("numQueuedRequests")).isTrue();
    assertThat(stat.at("/kvCacheStats/maxNumBlocks").asInt()).isEqualTo(64);
    assertThat(stat.at("/kvCacheStats/tokensPerBlock").asInt()).isEqualTo(32);
    JsonNode info = SimClient.get(worker.baseUrl() + "/server_info").json();
    assertThat(info.get("tokens_per_block").asInt()).isEqualTo(32);
    assertThat(Json.MAPPER.writeValueAsString(info)).contains("v1_block_key");
  }
}
