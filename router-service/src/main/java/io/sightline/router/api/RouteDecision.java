package io.sightline.router.api;

import java.util.List;

/**
 * The answer to a {@link RouteRequest}.
 *
 * @param routingId id of this routed request; pass it to {@link RoutingService#release}
 * @param worker the chosen worker
 * @param totalBlocks full KV blocks of the request's routing tokens
 * @param overlapBlocks of those, the prefix blocks the chosen worker holds (or is predicted to)
 * @param forwardMmHashes the images' mm_hashes in {@code MmHashes.forwardable} form, in image order
 *     (vLLM receives them as multimodal uuids so its own cache keys agree with ours)
 * @param explanation per-candidate overlap and cost terms, mode and fallback reason
 */
public record RouteDecision(
    String routingId,
    WorkerRef worker,
    int totalBlocks,
    int overlapBlocks,
    List<String> forwardMmHashes,
    Explanation explanation) {
  public RouteDecision {
    forwardMmHashes = forwardMmHashes == null ? List.of() : List.copyOf(forwardMmHashes);
  }
}
