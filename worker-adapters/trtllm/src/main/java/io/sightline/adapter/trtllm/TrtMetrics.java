package io.sightline.adapter.trtllm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Load from TensorRT-LLM's {@code GET /metrics}: a JSON array of iteration stats since the last
 * call (a destructive drain, possibly {@code []}), one entry per iteration and attention-DP rank
 * ({@code ../shared/reference/trtllm.md} §3). The newest entry per rank wins. Utilisation is {@code
 * usedNumBlocks / maxNumBlocks}, as Dynamo computes it.
 */
public final class TrtMetrics {

  /** One rank's load at its newest iteration. */
  public record Load(
      int dpRank,
      long iteration,
      int activeRequests,
      int queuedRequests,
      long usedBlocks,
      long maxBlocks,
      int tokensPerBlock,
      double kvUsage) {}

  private final ObjectMapper mapper;

  public TrtMetrics() {
    this(new ObjectMapper());
  }

  public TrtMetrics(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** Parses a response; an empty list means no iteration happened since the last poll. */
  public List<Load> parse(byte[] body) throws TrtDecodeException {
    JsonNode root;
    try {
      root = mapper.readTree(body);
    } catch (IOException e) {
      throw new TrtDecodeException("metrics is not JSON: " + e.getMessage(), e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      return List.of();
    }
    if (root.isObject()) {
      Optional<Load> one = load(root);
      return one.map(List::of).orElse(List.of());
    }
    if (!root.isArray()) {
      throw new TrtDecodeException("metrics must be a JSON list, got " + root.getNodeType());
    }
    Map<Integer, Load> newest = new LinkedHashMap<>();
    for (JsonNode it : root) {
      load(it)
          .ifPresent(
              l -> newest.merge(l.dpRank(), l, (a, b) -> b.iteration() >= a.iteration() ? b : a));
    }
    return new ArrayList<>(newest.values());
  }

  private static Optional<Load> load(JsonNode it) {
    if (!it.isObject()) {
      return Optional.empty();
    }
    JsonNode kv = it.path("kvCacheStats");
    long used = kv.path("usedNumBlocks").asLong(0);
    long max = kv.path("maxNumBlocks").asLong(0);
    double usage = max > 0 ? (double) used / max : Double.NaN;
    return Optional.of(
        new Load(
            it.path("attentionDpRank").asInt(0),
            it.path("iter").asLong(0),
            it.path("numActiveRequests").asInt(0),
            it.path("numQueuedRequests").asInt(0),
            used,
            max,
            kv.path("tokensPerBlock").asInt(0),
            usage));
  }
}
