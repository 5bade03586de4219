package io.sightline.registry.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * Where the router gets a worker's KV cache events.
 *
 * <ul>
 *   <li>{@code zmq} (vLLM {@code --kv-events-config}): {@code endpoint} is the PUB address (e.g.
 *       {@code tcp://10.0.0.5:5557}), {@code replayEndpoint} the ROUTER address used to replay
 *       missed sequence numbers, {@code topic} the subscription topic (empty = all).
 *   <li>{@code trtllm_poll}: {@code endpoint} is the HTTP URL of TRT-LLM's {@code
 *       /kv_cache_events}, polled every {@code pollIntervalMs}.
 *   <li>{@code none}: the worker emits no events (approximate routing only).
 * </ul>
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KvEventSource(
    Kind kind, String endpoint, String replayEndpoint, String topic, Integer pollIntervalMs) {

  /** The transport of a worker's KV events. */
  public enum Kind {
    ZMQ("zmq"),
    TRTLLM_POLL("trtllm_poll"),
    NONE("none");

    private final String id;

    Kind(String id) {
      this.id = id;
    }

    @JsonValue
    public String id() {
      return id;
    }

    @JsonCreator
    public static Kind fromId(String id) {
      for (Kind k : values()) {
        if (k.id.equals(id)) {
          return k;
        }
      }
      throw new IllegalArgumentException(
          "unknown kv_events kind '" + id + "' (expected zmq, trtllm_poll or none)");
    }
  }

  /** vLLM ZMQ publisher with an optional replay endpoint. */
  public static KvEventSource zmq(String endpoint, String replayEndpoint) {
    return new KvEventSource(Kind.ZMQ, endpoint, replayEndpoint, "", null);
  }

  /** TRT-LLM's polled {@code /kv_cache_events} endpoint. */
  public static KvEventSource trtllmPoll(String url, int pollIntervalMs) {
    return new KvEventSource(Kind.TRTLLM_POLL, url, null, null, pollIntervalMs);
  }

  /** No events. */
  public static KvEventSource none() {
    return new KvEventSource(Kind.NONE, null, null, null, null);
  }
}
