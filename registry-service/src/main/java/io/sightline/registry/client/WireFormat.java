package io.sightline.registry.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.registry.model.ApiKey;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.RegistryJson;
import io.sightline.registry.model.Versioned;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.store.Snapshot;
import io.sightline.registry.store.StoreEvent;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * JSON shapes shared by the registry's HTTP API and {@link RemoteRegistryClient}: the snapshot and
 * list bodies ({@code {"revision":R,"models":[{"revision":r,"model":{…}}],"workers":[…]}}) and the
 * change events of the SSE stream ({@code {"type":"model_put","revision":r,"model":{…}}}, {@code
 * model_deleted} with {@code name}, {@code worker_put}, {@code worker_deleted} with {@code id}).
 * Documented in docs/registry.md.
 */
public final class WireFormat {
  private static final ObjectMapper JSON = RegistryJson.mapper();

  private WireFormat() {}

  public static ObjectNode model(Versioned<ModelCard> v) {
    ObjectNode n = JSON.createObjectNode();
    n.put("revision", v.revision());
    n.set("model", JSON.valueToTree(v.value()));
    return n;
  }

  public static ObjectNode worker(Versioned<WorkerInstance> v) {
    ObjectNode n = JSON.createObjectNode();
    n.put("revision", v.revision());
    n.set("worker", JSON.valueToTree(v.value()));
    return n;
  }

  public static ObjectNode apiKey(Versioned<ApiKey> v) {
    ObjectNode n = JSON.createObjectNode();
    n.put("revision", v.revision());
    n.set("api_key", JSON.valueToTree(v.value()));
    return n;
  }

  /** The snapshot body. */
  public static ObjectNode snapshot(Snapshot s) {
    ObjectNode n = JSON.createObjectNode();
    n.put("revision", s.revision());
    ArrayNode models = n.putArray("models");
    s.models().forEach(m -> models.add(model(m)));
    ArrayNode workers = n.putArray("workers");
    s.workers().forEach(w -> workers.add(worker(w)));
    ArrayNode keys = n.putArray("api_keys");
    s.apiKeys().forEach(k -> keys.add(apiKey(k)));
    return n;
  }

  /** Parses a snapshot body. */
  public static Snapshot parseSnapshot(byte[] body) throws IOException {
    JsonNode n = JSON.readTree(body);
    List<Versioned<ModelCard>> models = new ArrayList<>();
    for (JsonNode m : n.path("models")) {
      models.add(
          new Versioned<>(
              JSON.treeToValue(m.get("model"), ModelCard.class), m.path("revision").asLong()));
    }
    List<Versioned<WorkerInstance>> workers = new ArrayList<>();
    for (JsonNode w : n.path("workers")) {
      workers.add(
          new Versioned<>(
              JSON.treeToValue(w.get("worker"), WorkerInstance.class),
              w.path("revision").asLong()));
    }
    List<Versioned<ApiKey>> keys = new ArrayList<>();
    for (JsonNode k : n.path("api_keys")) {
      keys.add(
          new Versioned<>(
              JSON.treeToValue(k.get("api_key"), ApiKey.class), k.path("revision").asLong()));
    }
    return new Snapshot(n.path("revision").asLong(), models, workers, keys);
  }

  /** One change event as SSE data. */
  public static String event(StoreEvent e) {
    ObjectNode n = JSON.createObjectNode();
    switch (e) {
      case StoreEvent.ModelPut p -> {
        n.put("type", "model_put");
        n.put("revision", p.revision());
        n.set("model", JSON.valueToTree(p.card()));
      }
      case StoreEvent.ModelDeleted d -> {
        n.put("type", "model_deleted");
        n.put("revision", d.revision());
        n.put("name", d.name());
        if (d.previous() != null) {
          n.set("model", JSON.valueToTree(d.previous()));
        }
      }
      case StoreEvent.WorkerPut p -> {
        n.put("type", "worker_put");
        n.put("revision", p.revision());
        n.set("worker", JSON.valueToTree(p.worker()));
      }
      case StoreEvent.WorkerDeleted d -> {
        n.put("type", "worker_deleted");
        n.put("revision", d.revision());
        n.put("id", d.id());
        if (d.previous() != null) {
          n.set("worker", JSON.valueToTree(d.previous()));
        }
      }
      case StoreEvent.ApiKeyPut p -> {
        n.put("type", "api_key_put");
        n.put("revision", p.revision());
        n.set("api_key", JSON.valueToTree(p.key()));
      }
      case StoreEvent.ApiKeyDeleted d -> {
        n.put("type", "api_key_deleted");
        n.put("revision", d.revision());
        n.put("name", d.name());
        if (d.previous() != null) {
          n.set("api_key", JSON.valueToTree(d.previous()));
        }
      }
    }
    return n.toString();
  }

  /** Parses one change event. */
  public static StoreEvent parseEvent(String data) throws IOException {
    JsonNode n = JSON.readTree(data);
    long rev = n.path("revision").asLong();
    String type = n.path("type").asText();
    return switch (type) {
      case "model_put" ->
          new StoreEvent.ModelPut(JSON.treeToValue(n.get("model"), ModelCard.class), rev);
      case "model_deleted" ->
          new StoreEvent.ModelDeleted(
              n.path("name").asText(),
              n.has("model") ? JSON.treeToValue(n.get("model"), ModelCard.class) : null,
              rev);
      case "worker_put" ->
          new StoreEvent.WorkerPut(JSON.treeToValue(n.get("worker"), WorkerInstance.class), rev);
      case "worker_deleted" ->
          new StoreEvent.WorkerDeleted(
              n.path("id").asText(),
              n.has("worker") ? JSON.treeToValue(n.get("worker"), WorkerInstance.class) : null,
              rev);
      case "api_key_put" ->
          new StoreEvent.ApiKeyPut(JSON.treeToValue(n.get("api_key"), ApiKey.class), rev);
      case "api_key_deleted" ->
          new StoreEvent.ApiKeyDeleted(
              n.path("name").asText(),
              n.has("api_key") ? JSON.treeToValue(n.get("api_key"), ApiKey.class) : null,
              rev);
      default -> throw new IOException("unknown registry event type '" + type + "'");
    };
  }
}
