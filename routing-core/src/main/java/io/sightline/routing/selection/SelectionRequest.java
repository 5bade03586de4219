package io.sightline.routing.selection;

import java.util.Objects;

/**
 * What selection needs to know about one request.
 *
 * @param requestId unique id of the routed request (used to book and release load)
 * @param model served model name
 * @param loraName LoRA adapter requested, or {@code null}
 * @param localHashes the request's local block hashes (full blocks of the routing tokens)
 * @param inputTokens routing tokens of the prompt (images expanded), the {@code isl}
 * @param blockSize KV block size in tokens
 * @param override per-request knob overrides, or {@code null}
 */
public record SelectionRequest(
    String requestId,
    String model,
    String loraName,
    long[] localHashes,
    int inputTokens,
    int blockSize,
    RouterConfigOverride override) {
  public SelectionRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(localHashes, "localHashes");
    if (blockSize <= 0) {
      throw new IllegalArgumentException("blockSize must be > 0");
    }
    if (inputTokens < 0) {
      throw new IllegalArgumentException("inputTokens must be >= 0");
    }
    loraName = loraName == null || loraName.isEmpty() ? null : loraName;
  }

  /** Blocks the request occupies: {@code ceil(inputTokens / blockSize)}. */
  public int requestBlocks() {
    return (inputTokens + blockSize - 1) / blockSize;
  }
}
