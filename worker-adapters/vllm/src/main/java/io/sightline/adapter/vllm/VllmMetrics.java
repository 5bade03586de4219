package io.sightline.adapter.vllm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Load signals from a vLLM worker's Prometheus {@code /metrics}, per data-parallel engine (the
 * {@code engine} label; 0 when absent).
 *
 * <p>Metric names (vLLM V1): {@code vllm:num_requests_running}, {@code vllm:num_requests_waiting},
 * {@code vllm:kv_cache_usage_perc} (a 0–1 fraction despite its name; called {@code
 * vllm:gpu_cache_usage_perc} before v0.10), and the counters {@code vllm:prefix_cache_queries} /
 * {@code vllm:prefix_cache_hits} (with or without the {@code _total} suffix). Samples of several
 * models on one server are summed per engine (the KV usage fraction takes the maximum).
 */
public final class VllmMetrics {

  /** One engine's load. Missing gauges are {@code NaN}. */
  public record Load(
      int dpRank,
      double running,
      double waiting,
      double kvUsage,
      double prefixQueries,
      double prefixHits) {}

  private VllmMetrics() {}

  /** Parses a {@code /metrics} body. Engines without any known sample are omitted. */
  public static List<Load> parse(String prometheusText) {
    Map<Integer, double[]> byRank = new TreeMap<>();
    for (PrometheusText.Sample s : PrometheusText.parse(prometheusText).samples()) {
      int field =
          switch (s.name()) {
            case "vllm:num_requests_running" -> 0;
            case "vllm:num_requests_waiting" -> 1;
            case "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc" -> 2;
            case "vllm:prefix_cache_queries_total", "vllm:prefix_cache_queries" -> 3;
            case "vllm:prefix_cache_hits_total", "vllm:prefix_cache_hits" -> 4;
            default -> -1;
          };
      if (field < 0 || Double.isNaN(s.value())) {
        continue;
      }
      int rank = 0;
      String engine = s.labels().get("engine");
      if (engine != null) {
        try {
          rank = Integer.parseInt(engine);
        } catch (NumberFormatException e) {
          continue;
        }
      }
      double[] v =
          byRank.computeIfAbsent(
              rank, r -> new double[] {Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN});
      if (Double.isNaN(v[field])) {
        v[field] = s.value();
      } else {
        // a utilisation fraction is not additive: keep the fullest pool
        v[field] = field == 2 ? Math.max(v[field], s.value()) : v[field] + s.value();
      }
    }
    List<Load> out = new ArrayList<>(byRank.size());
    byRank.forEach((rank, v) -> out.add(new Load(rank, v[0], v[1], v[2], v[3], v[4])));
    return out;
  }
}
