package io.sightline.router.api;

/**
 * The chosen worker.
 *
 * @param workerId registry worker id
 * @param dpRank data-parallel rank inside the worker (0 when not data-parallel)
 * @param baseUrl the worker's OpenAI-compatible base URL, e.g. {@code http://10.0.0.5:8000}
 * @param dialect backend dialect: {@code "vllm"} or {@code "trtllm"}
 */
public record WorkerRef(String workerId, int dpRank, String baseUrl, String dialect) {}
