package io.sightline.routing.selection;

import io.sightline.routing.index.WorkerOverlap;

/**
 * What filters and scorers see of one candidate for one request.
 *
 * @param candidate registry/metrics view of the worker rank
 * @param overlap its cached/predicted prefix of the request
 * @param load its booked in-flight load
 */
public record CandidateView(WorkerCandidate candidate, WorkerOverlap overlap, WorkerLoad load) {}
