package io.sightline.routing.selection;

/**
 * Load signals scraped from a worker's metrics endpoint (vLLM {@code vllm:num_requests_waiting},
 * {@code vllm:num_requests_running}, {@code vllm:kv_cache_usage_perc}; TRT-LLM equivalents).
 *
 * @param waitingRequests requests queued, not yet running
 * @param runningRequests requests running
 * @param kvUsage KV cache usage 0–1
 * @param scrapedAtMillis wall-clock time of the scrape (epoch ms)
 */
public record WorkerMetrics(
    int waitingRequests, int runningRequests, double kvUsage, long scrapedAtMillis) {}
