package io.sightline.adapter.vllm;

import java.util.List;

/**
 * One published batch: {@code [ts, events, data_parallel_rank]} (or the same fields as a map).
 *
 * @param timestamp seconds since the epoch, as the engine stamped it
 * @param events decoded events in order; unknown event types are skipped and counted in {@code
 *     skippedUnknown}
 * @param dpRank data-parallel rank, {@code null} when the publisher did not fill it
 * @param skippedUnknown number of events of an unknown type that were skipped
 */
public record VllmEventBatch(
    double timestamp, List<VllmKvEvent> events, Integer dpRank, int skippedUnknown) {}
