package io.sightline.router.api;

/**
 * The routing API: "which worker should serve this request?".
 *
 * <p>Implemented in-process by the router's engine and remotely by {@code HttpRoutingService} (HTTP
 * {@code POST /v1/route}, {@code /v1/explain}, {@code /v1/release}), so the gateway codes against
 * this interface only. Implementations never throw for an unknown or unloadable model: they fall
 * back to text-only routing and say so in the {@link Explanation}. They throw {@link
 * RoutingException} only when no worker can serve the model at all, or when the request is
 * malformed.
 */
public interface RoutingService {

  /** Decides and books the request's load and predicted cache entries until {@link #release}. */
  RouteDecision route(RouteRequest request);

  /** The same answer {@link #route} would give now, with no side effects (dry run). */
  RouteDecision explain(RouteRequest request);

  /** Ends a request: frees its booked load. Unknown routing ids are ignored (idempotent). */
  void release(ReleaseRequest request);
}
