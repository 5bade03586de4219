package io.sightline.registry.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.Map;

/**
 * One inference worker (an engine process, possibly with several data-parallel ranks) serving one
 * model (schema {@code worker-instance.v1}, {@code
 * classpath:/schema/worker-instance.v1.schema.json}).
 *
 * <p>A worker is either <em>leased</em> ({@code leaseTtlSeconds} set): it registered itself and
 * must heartbeat; when the lease lapses the registry deletes it (etcd lease expiry, as Dynamo binds
 * instances to leases, dynamo.md §9), or <em>static</em> ({@code leaseTtlSeconds} null): it was
 * registered by an operator and persists until removed.
 *
 * @param schemaVersion schema version, {@value ModelCard#SCHEMA_VERSION}
 * @param id unique worker id; also the router's worker id in KV events
 * @param model the model card's name (an alias is accepted on write and replaced by the name)
 * @param servedModelName the name the engine itself reports (vLLM {@code --served-model-name}),
 *     when the worker knows it; must be the card's name or an alias
 * @param baseUrl the worker's OpenAI-compatible HTTP base URL, e.g. {@code http://10.0.0.5:8000}
 * @param dialect request/event dialect ({@code vllm} / {@code trtllm}); must match the card's
 *     backend
 * @param dataParallelSize number of data-parallel ranks behind this worker (each has its own cache)
 * @param kvBlockSize block size the engine reports; must equal the card's (a silent mismatch makes
 *     every block hash miss); filled from the card when the worker does not report it
 * @param kvEvents where the router gets this worker's KV events
 * @param metricsUrl Prometheus (vLLM) or JSON (TRT-LLM) metrics URL, for load scoring
 * @param labels free-form labels (zone, GPU type, ...) for filtering and display
 * @param state {@code ready} or {@code draining}
 * @param leaseTtlSeconds lease time-to-live for a self-registered worker; null for a static one
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
  "schema_version",
  "id",
  "model",
  "served_model_name",
  "base_url",
  "dialect",
  "data_parallel_size",
  "kv_block_size",
  "kv_events",
  "metrics_url",
  "labels",
  "state",
  "lease_ttl_seconds"
})
public record WorkerInstance(
    Integer schemaVersion,
    String id,
    String model,
    String servedModelName,
    String baseUrl,
    BackendKind dialect,
    Integer dataParallelSize,
    Integer kvBlockSize,
    KvEventSource kvEvents,
    String metricsUrl,
    Map<String, String> labels,
    WorkerState state,
    Integer leaseTtlSeconds) {

  public WorkerInstance {
    labels = labels == null ? null : Map.copyOf(labels);
  }

  /** A static worker with defaults (one DP rank, no events, ready). */
  public static WorkerInstance of(
      String id, String model, String baseUrl, BackendKind dialect, int kvBlockSize) {
    return new WorkerInstance(
            null,
            id,
            model,
            null,
            baseUrl,
            dialect,
            null,
            kvBlockSize,
            null,
            null,
            null,
            null,
            null)
        .withDefaults();
  }

  /** This worker with unset optional fields filled (schema 1, dp size 1, no events, ready). */
  public WorkerInstance withDefaults() {
    return new WorkerInstance(
        schemaVersion == null ? ModelCard.SCHEMA_VERSION : schemaVersion,
        id,
        model,
        servedModelName,
        baseUrl,
        dialect,
        dataParallelSize == null ? 1 : dataParallelSize,
        kvBlockSize,
        kvEvents == null ? KvEventSource.none() : kvEvents,
        metricsUrl,
        labels == null ? Map.of() : labels,
        state == null ? WorkerState.READY : state,
        leaseTtlSeconds);
  }

  /** True when this worker is bound to a lease (self-registered). */
  @JsonIgnore
  public boolean leased() {
    return leaseTtlSeconds != null;
  }

  /** A copy bound to a lease of {@code ttlSeconds} (null = static). */
  public WorkerInstance withLeaseTtlSeconds(Integer ttlSeconds) {
    return new WorkerInstance(
        schemaVersion,
        id,
        model,
        servedModelName,
        baseUrl,
        dialect,
        dataParallelSize,
        kvBlockSize,
        kvEvents,
        metricsUrl,
        labels,
        state,
        ttlSeconds);
  }

  /** A copy for another model name / block size (used when resolving aliases and defaults). */
  public WorkerInstance withModel(String modelName, Integer blockSize) {
    return new WorkerInstance(
        schemaVersion,
        id,
        modelName,
        servedModelName,
        baseUrl,
        dialect,
        dataParallelSize,
        blockSize,
        kvEvents,
        metricsUrl,
        labels,
        state,
        leaseTtlSeconds);
  }

  /** A copy in another state. */
  public WorkerInstance withState(WorkerState newState) {
    return new WorkerInstance(
        schemaVersion,
        id,
        model,
        servedModelName,
        baseUrl,
        dialect,
        dataParallelSize,
        kvBlockSize,
        kvEvents,
        metricsUrl,
        labels,
        newState,
        leaseTtlSeconds);
  }
}
