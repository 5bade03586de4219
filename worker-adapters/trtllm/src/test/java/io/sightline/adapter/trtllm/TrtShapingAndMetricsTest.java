package io.sightline.adapter.trtllm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TrtShapingAndMetricsTest {
  private final ObjectMapper mapper = new ObjectMapper();

  @Test
  void stripsUnknownTopLevelFieldsButKeepsPartExtras() throws Exception {
    ObjectNode req =
        (ObjectNode)
            mapper.readTree(
                """
                {"model":"m","messages":[{"role":"user","content":[
                  {"type":"image_url","image_url":{"url":"http://x/a.png"},"uuid":"u"}]}],
                 "max_tokens":5,"top_k":3,"multi_modal_uuids":{"image":["u"]},
                 "mm_hashes":["x"],"kv_transfer_params":{},"guided_json":{},"cache_salt":"s"}
                """);
    var shaped = new TrtRequestShaper().shape(req, true);
    assertThat(shaped.removed())
        .containsExactlyInAnyOrder(
            "multi_modal_uuids", "mm_hashes", "kv_transfer_params", "guided_json");
    assertThat(shaped.body().has("top_k")).isTrue();
    assertThat(shaped.body().has("cache_salt")).isTrue();
    assertThat(shaped.body().at("/messages/0/content/0/uuid").asText()).isEqualTo("u");
    assertThat(req.has("mm_hashes")).isTrue(); // input untouched

    ObjectNode completion =
        (ObjectNode)
            mapper.readTree(
                "{\"model\":\"m\",\"prompt\":\"hi\",\"messages\":[],\"cache_salt\":\"s\"}");
    assertThat(new TrtRequestShaper().shape(completion, false).removed())
        .containsExactlyInAnyOrder("messages", "cache_salt");
    assertThat(new TrtRequestShaper(Set.of("cache_salt")).shape(completion, false).removed())
        .containsExactly("messages");
  }

  @Test
  void metricsTakeTheNewestIterationPerRank() throws Exception {
    String body =
        """
        [{"iter":1,"attentionDpRank":0,"numActiveRequests":1,"numQueuedRequests":0,
          "kvCacheStats":{"maxNumBlocks":100,"usedNumBlocks":10,"tokensPerBlock":32}},
         {"iter":2,"attentionDpRank":0,"numActiveRequests":3,"numQueuedRequests":2,
          "kvCacheStats":{"maxNumBlocks":100,"usedNumBlocks":25,"tokensPerBlock":32}},
         {"iter":2,"attentionDpRank":1,"numActiveRequests":0,"numQueuedRequests":0,
          "kvCacheStats":{"maxNumBlocks":0,"usedNumBlocks":0}}]
        """;
    var loads = new TrtMetrics().parse(body.getBytes());
    assertThat(loads).hasSize(2);
    var r0 = loads.get(0);
    assertThat(r0.activeRequests()).isEqualTo(3);
    assertThat(r0.queuedRequests()).isEqualTo(2);
    assertThat(r0.kvUsage()).isEqualTo(0.25);
    assertThat(r0.tokensPerBlock()).isEqualTo(32);
    assertThat(loads.get(1).kvUsage()).isNaN();
    assertThat(new TrtMetrics().parse("[]".getBytes())).isEmpty();
    assertThatThrownBy(() -> new TrtMetrics().parse("nope".getBytes()))
        .isInstanceOf(TrtDecodeException.class);
  }
}
