package io.sightline.gateway.support;

import io.sightline.router.api.Explanation;
import io.sightline.router.api.ReleaseRequest;
import io.sightline.router.api.RouteDecision;
import io.sightline.router.api.RouteRequest;
import io.sightline.router.api.RoutingException;
import io.sightline.router.api.RoutingService;
import io.sightline.router.api.WorkerRef;
import io.sightline.routing.multimodal.MmHashes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A routing service at the edge of the gateway's fault-injection tests: it always prefers the
 * workers in the order it was given (the first one is chosen, the others are candidates with rising
 * cost), predicts 3 of 10 blocks, and records every route and release call.
 */
public final class ScriptedRouter implements RoutingService {
  public final List<RouteRequest> routed = new CopyOnWriteArrayList<>();
  public final List<ReleaseRequest> released = new CopyOnWriteArrayList<>();
  private final AtomicInteger ids = new AtomicInteger();
  public volatile List<WorkerRef> preference = List.of();
  public volatile RoutingException failure;

  @Override
  public RouteDecision route(RouteRequest request) {
    routed.add(request);
    return explain(request);
  }

  @Override
  public RouteDecision explain(RouteRequest request) {
    if (failure != null) {
      throw failure;
    }
    List<Explanation.Candidate> candidates = new ArrayList<>();
    for (int i = 0; i < preference.size(); i++) {
      candidates.add(
          new Explanation.Candidate(
              preference.get(i).workerId(), 0, 3, 10, 7, 0, 7 + i, i == 0, null));
    }
    return new RouteDecision(
        "r" + ids.incrementAndGet(),
        preference.get(0),
        10,
        3,
        request.images().stream().map(im -> MmHashes.forwardable(im.mmHash())).toList(),
        new Explanation(request.model(), "approximate", null, 16, 160, 0, candidates));
  }

  @Override
  public void release(ReleaseRequest request) {
    released.add(request);
  }
}
