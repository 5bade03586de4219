package io.sightline.registry.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.sightline.routing.expansion.MmScheme;
import io.sightline.routing.multimodal.spec.VlmFamily;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The published JSON Schemas must describe exactly what the records read and write. */
class SchemaFilesTest {
  private static final ObjectMapper JSON = RegistryJson.mapper();

  static ModelCard fullCard() {
    return new ModelCard(
        1,
        "Qwen/Qwen2-VL-7B-Instruct",
        List.of("qwen-vl"),
        BackendKind.VLLM,
        HfSource.inline(
            Map.of(
                "config.json",
                JsonNodeFactory.instance.objectNode().put("model_type", "qwen2_vl"))),
        "qwen2_vl",
        "override",
        16,
        MmScheme.GEN1,
        new MediaDecoder(true, 1000L, 2000L),
        RoutingMode.APPROXIMATE,
        List.of(new LoraAdapter("sql", "/loras/sql")),
        32768);
  }

  static WorkerInstance fullWorker() {
    return new WorkerInstance(
        1,
        "w-1",
        "m",
        "m",
        "http://h:8000",
        BackendKind.VLLM,
        2,
        16,
        new KvEventSource(KvEventSource.Kind.ZMQ, "tcp://h:5557", "tcp://h:5558", "kv", null),
        "http://h:8000/metrics",
        Map.of("zone", "a"),
        WorkerState.DRAINING,
        10);
  }

  static JsonNode schema(String name) throws Exception {
    try (InputStream in = SchemaFilesTest.class.getResourceAsStream("/schema/" + name)) {
      return JSON.readTree(in);
    }
  }

  static List<String> names(JsonNode object) {
    List<String> out = new ArrayList<>();
    object.fieldNames().forEachRemaining(out::add);
    return out;
  }

  @Test
  void modelCardSchemaListsExactlyTheRecordsFields() throws Exception {
    JsonNode schema = schema("model-card.v1.schema.json");
    JsonNode written = JSON.valueToTree(fullCard());
    assertThat(names(schema.get("properties"))).containsExactlyInAnyOrderElementsOf(names(written));
    assertThat(names(schema.at("/properties/media_decoder/properties")))
        .containsExactlyInAnyOrderElementsOf(names(written.get("media_decoder")));
    List<String> families = new ArrayList<>();
    schema.at("/properties/processor_family/enum").forEach(n -> families.add(n.asText()));
    List<String> expected =
        new ArrayList<>(Arrays.stream(VlmFamily.values()).map(VlmFamily::id).toList());
    expected.add("none");
    assertThat(families).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(schema.at("/additionalProperties").asBoolean(true)).isFalse();
  }

  @Test
  void workerSchemaListsExactlyTheRecordsFields() throws Exception {
    JsonNode schema = schema("worker-instance.v1.schema.json");
    JsonNode written = JSON.valueToTree(fullWorker());
    assertThat(names(schema.get("properties"))).containsExactlyInAnyOrderElementsOf(names(written));
    assertThat(names(schema.at("/properties/kv_events/properties")))
        .containsAll(names(written.get("kv_events")));
  }

  @Test
  void apiKeySchemaListsExactlyTheRecordsFields() throws Exception {
    JsonNode schema = schema("api-key.v1.schema.json");
    ApiKey full = new ApiKey(1, "k", "ab".repeat(32), List.of("m"), 1L, 2L, false, "d");
    assertThat(names(schema.get("properties")))
        .containsExactlyInAnyOrderElementsOf(names(JSON.valueToTree(full)));
    assertThat(JSON.readValue(JSON.writeValueAsString(full), ApiKey.class)).isEqualTo(full);
  }

  @Test
  void recordsRoundTripThroughJson() throws Exception {
    ModelCard c = fullCard();
    String json = JSON.writeValueAsString(c);
    assertThat(json)
        .contains(
            "\"mm_scheme\":\"gen1\"", "\"routing_mode\":\"approximate\"", "\"kv_block_size\":16");
    assertThat(JSON.readValue(json, ModelCard.class)).isEqualTo(c);
    WorkerInstance w = fullWorker();
    assertThat(JSON.readValue(JSON.writeValueAsString(w), WorkerInstance.class)).isEqualTo(w);
  }

  @Test
  void strictParsingRefusesTyposCoercionAndDuplicates() {
    assertThatThrownBy(
            () -> JSON.readValue("{\"name\":\"m\",\"kv_blok_size\":16}", ModelCard.class))
        .isInstanceOf(UnrecognizedPropertyException.class);
    assertThatThrownBy(
            () -> JSON.readValue("{\"name\":\"m\",\"kv_block_size\":\"16\"}", ModelCard.class))
        .hasMessageContaining("kv_block_size");
    assertThatThrownBy(() -> JSON.readValue("{\"name\":\"m\",\"name\":\"n\"}", ModelCard.class))
        .hasMessageContaining("Duplicate field");
    assertThatThrownBy(
            () -> JSON.readValue("{\"name\":\"m\",\"kv_block_size\":16.5}", ModelCard.class))
        .hasMessageContaining("kv_block_size");
  }
}
