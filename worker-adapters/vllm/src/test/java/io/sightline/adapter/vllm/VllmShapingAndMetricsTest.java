package io.sightline.adapter.vllm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.routing.multimodal.MmHashes;
import java.util.List;
import org.junit.jupiter.api.Test;

class VllmShapingAndMetricsTest {
  private final ObjectMapper mapper = new ObjectMapper();

  @Test
  void tagsImagePartsInOrderWithForwardableHashes() throws Exception {
    ObjectNode req =
        (ObjectNode)
            mapper.readTree(
                """
                {"model":"m","messages":[
                  {"role":"system","content":"be brief"},
                  {"role":"user","content":[{"type":"text","text":"a"},
                    {"type":"image_url","image_url":{"url":"http://x/1.png"}},
                    {"image_url":"http://x/2.png"}]},
                  {"role":"user","content":[{"type":"image_url","image_url":{"url":"data:,"}}]}]}
                """);
    List<String> ids =
        List.of(MmHashes.forwardable(1), MmHashes.forwardable(2), MmHashes.forwardable(3));
    var shaped = new VllmRequestShaper().shape(req, ids);
    assertThat(shaped.taggedImages()).isEqualTo(3);
    assertThat(shaped.body().at("/messages/1/content/1/uuid").asText()).isEqualTo(ids.get(0));
    assertThat(shaped.body().at("/messages/1/content/2/uuid").asText()).isEqualTo(ids.get(1));
    assertThat(shaped.body().at("/messages/2/content/0/uuid").asText()).isEqualTo(ids.get(2));
    assertThat(shaped.body().at("/messages/1/content/0/uuid").isMissingNode()).isTrue();
    assertThat(req.at("/messages/1/content/1/uuid").isMissingNode()).isTrue();

    var mismatch = new VllmRequestShaper().shape(req, ids.subList(0, 2));
    assertThat(mismatch.taggedImages()).isZero();
    assertThat(mismatch.warnings()).hasSize(1);
    assertThat(mismatch.body()).isEqualTo(req);
  }

  @Test
  void parsesVllmPrometheusMetricsPerEngine() {
    String text =
        """
        # HELP vllm:num_requests_running Number of requests in model execution batches.
        # TYPE vllm:num_requests_running gauge
        vllm:num_requests_running{engine="0",model_name="Qwen/Qwen2-VL-2B"} 3.0
        vllm:num_requests_running{engine="1",model_name="Qwen/Qwen2-VL-2B"} 1.0
        vllm:num_requests_waiting{engine="0",model_name="Qwen/Qwen2-VL-2B"} 2.0
        vllm:kv_cache_usage_perc{engine="0",model_name="Qwen/Qwen2-VL-2B"} 0.42
        vllm:prefix_cache_hits_total{engine="0",model_name="a \\"quoted\\" name"} 7
        vllm:prefix_cache_queries_total{engine="0",model_name="m"} 10 1700000000000
        vllm:gpu_cache_usage_perc{engine="1"} 0.1
        process_cpu_seconds_total 12.5
        broken{engine="0" 1
        """;
    var loads = VllmMetrics.parse(text);
    assertThat(loads).hasSize(2);
    var e0 = loads.get(0);
    assertThat(e0.dpRank()).isZero();
    assertThat(e0.running()).isEqualTo(3.0);
    assertThat(e0.waiting()).isEqualTo(2.0);
    assertThat(e0.kvUsage()).isEqualTo(0.42);
    assertThat(e0.prefixHits()).isEqualTo(7);
    assertThat(e0.prefixQueries()).isEqualTo(10);
    var e1 = loads.get(1);
    assertThat(e1.running()).isEqualTo(1.0);
    assertThat(e1.waiting()).isNaN();
    assertThat(e1.kvUsage()).isEqualTo(0.1);
    var parsed = PrometheusText.parse(text);
    assertThat(parsed.badLines()).isEqualTo(1);
    assertThat(parsed.samples().get(4).labels().get("model_name")).isEqualTo("a \"quoted\" name");
  }
}
