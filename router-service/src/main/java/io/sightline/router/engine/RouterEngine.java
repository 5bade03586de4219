package io.sightline.router.engine;

import io.sightline.registry.client.RegistryClient;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.RoutingMode;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.model.WorkerState;
import io.sightline.router.api.Explanation;
import io.sightline.router.api.ReleaseRequest;
import io.sightline.router.api.ResolvedImage;
import io.sightline.router.api.RouteDecision;
import io.sightline.router.api.RouteRequest;
import io.sightline.router.api.RoutingException;
import io.sightline.router.api.RoutingService;
import io.sightline.router.api.WorkerRef;
import io.sightline.router.model.ModelRuntime;
import io.sightline.router.model.ModelRuntimes;
import io.sightline.router.state.Prediction;
import io.sightline.router.state.PredictionStore;
import io.sightline.router.state.SharedLoad;
import io.sightline.routing.index.WorkerKey;
import io.sightline.routing.multimodal.MmHashes;
import io.sightline.routing.selection.CandidateOutcome;
import io.sightline.routing.selection.LoadSource;
import io.sightline.routing.selection.LoadTracker;
import io.sightline.routing.selection.RouterConfig;
import io.sightline.routing.selection.SelectionRequest;
import io.sightline.routing.selection.SelectionResult;
import io.sightline.routing.selection.WorkerCandidate;
import io.sightline.routing.selection.WorkerLoad;
import io.sightline.routing.selection.WorkerSelector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-process {@link RoutingService}: model runtime → request preparation (encode, expand, hash)
 * → routing-core's {@link WorkerSelector} over the model's workers from the registry → decision,
 * log line and metrics.
 *
 * <p>Load is this replica's {@link LoadTracker} plus the other replicas' published load ({@link
 * SharedLoad}); a committed decision also becomes a prediction in the model's index and is
 * published to the other replicas ({@link PredictionStore}), so two gateways routing the same new
 * prefix moments apart agree. {@link #explain} runs the same selection without booking, predicting,
 * publishing or logging.
 *
 * <p>Each decision logs one stable INFO line that operators grep for (dynamo.md §6):
 *
 * <pre>
 * [ROUTING] model=qwen best=worker_1 dp=0 overlap=12/40 blocks cost=28.00 mode=precise id=rt-…
 * </pre>
 */
public final class RouterEngine implements RoutingService {
  private static final Logger log = LoggerFactory.getLogger(RouterEngine.class);

  /** Engine settings. */
  public record Settings(String replicaId, RouterConfig config, boolean publishPredictions) {}

  private record SelectorEntry(ModelRuntime runtime, WorkerSelector selector) {}

  private final RegistryClient registry;
  private final ModelRuntimes runtimes;
  private final LoadTracker tracker;
  private final SharedLoad shared;
  private final PredictionStore predictions;
  private final WorkerMetricsSource metricsSource;
  private final RouterMetrics metrics;
  private final Settings settings;
  private final RequestPreparer preparer = new RequestPreparer();
  private final LoadSource loadSource;
  private final ConcurrentHashMap<String, SelectorEntry> selectors = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, ModelRuntime> bookedModel = new ConcurrentHashMap<>();
  // Ties are broken by a generator seeded from the request's block hashes: the same request gets
  // the same answer on every replica and from explain (converging replicas, reproducible
  // explanations), while different requests still spread over equally good workers.
  private final ThreadLocal<RandomGenerator> requestRandom = new ThreadLocal<>();

  public RouterEngine(
      RegistryClient registry,
      ModelRuntimes runtimes,
      LoadTracker tracker,
      SharedLoad shared,
      PredictionStore predictions,
      WorkerMetricsSource metricsSource,
      RouterMetrics metrics,
      Settings settings) {
    this.registry = registry;
    this.runtimes = runtimes;
    this.tracker = tracker;
    this.shared = shared;
    this.predictions = predictions;
    this.metricsSource = metricsSource == null ? WorkerMetricsSource.NONE : metricsSource;
    this.metrics = metrics;
    this.settings = settings;
    this.loadSource =
        w -> {
          WorkerLoad other = shared.others().get(w);
          WorkerLoad own = tracker.load(w);
          return other == null ? own : own.plus(other);
        };
    metrics.inflight(tracker, t -> ((LoadTracker) t).activeBookings());
  }

  @Override
  public RouteDecision route(RouteRequest request) {
    return decide(request, true);
  }

  @Override
  public RouteDecision explain(RouteRequest request) {
    return decide(request, false);
  }

  @Override
  public void release(ReleaseRequest request) {
    if (request == null || request.routingId() == null) {
      return;
    }
    if (tracker.release(request.routingId(), request.cachedTokens()).isPresent()) {
      metrics.release(request.cachedTokens() != null);
    }
    bookedModel.remove(request.routingId());
  }

  /** This replica's own load per worker rank (what {@link SharedLoad#sync} publishes). */
  public Map<WorkerKey, WorkerLoad> localLoad() {
    Map<WorkerKey, WorkerLoad> out = new HashMap<>();
    for (WorkerInstance w : registry.workers()) {
      int ranks = ranks(w);
      for (int r = 0; r < ranks; r++) {
        WorkerKey k = new WorkerKey(w.id(), r);
        WorkerLoad l = tracker.load(k);
        if (l.activeRequests() > 0 || l.activeBlocks() > 0 || l.activePrefillTokens() > 0) {
          out.put(k, l);
        }
      }
    }
    return out;
  }

  /** Applies a prediction received from another replica to its model's index. */
  public void applyRemotePrediction(Prediction p, long nowMillis) {
    long ttl = p.expiresAtMillis() - nowMillis;
    if (ttl <= 0) {
      return;
    }
    // Load the model's runtime if this replica has not yet (it loads cards in the background):
    // a prediction that arrives first would otherwise be dropped and never come again.
    runtimes.forModel(p.model()).index().predict(p.worker(), p.localHashes(), ttl);
  }

  private RouteDecision decide(RouteRequest req, boolean commit) {
    long t0 = System.nanoTime();
    validate(req);
    List<WorkerInstance> workers = registry.workers(req.model());
    if (workers.isEmpty()) {
      // checked before any runtime exists, so client-chosen model names cannot grow our state
      boolean known = registry.model(req.model()).isPresent();
      metrics.rejected(known ? req.model() : "unknown");
      if (!known) {
        throw new RoutingException(
            404, "model_not_found", "model '" + req.model() + "' has no card and no workers");
      }
      throw new RoutingException(
          503, "no_workers", "no worker is registered for model '" + req.model() + "'");
    }
    ModelRuntime rt = runtimes.forModel(req.model());
    List<WorkerCandidate> candidates = new ArrayList<>();
    Map<String, WorkerInstance> byId = new HashMap<>();
    for (WorkerInstance w : workers) {
      byId.put(w.id(), w);
      boolean draining = w.state() == WorkerState.DRAINING;
      for (int r = 0; r < ranks(w); r++) {
        candidates.add(
            new WorkerCandidate(
                new WorkerKey(w.id(), r),
                true,
                draining,
                Set.of(),
                Set.of(),
                0,
                metricsSource.metrics(w.id(), r)));
      }
    }
    PreparedRequest prepared = preparer.prepare(rt, req);
    if (prepared.fallbackReason() != null) {
      metrics.fallback(prepared.fallbackReason());
    }
    String routingId = newRoutingId();
    SelectionRequest sreq =
        new SelectionRequest(
            routingId,
            rt.name(),
            null,
            prepared.localHashes(),
            prepared.routingTokens(),
            rt.blockSize(),
            null);
    WorkerSelector selector = selector(rt);
    SelectionResult result;
    requestRandom.set(new SplittableRandom(seed(prepared.localHashes(), rt.name())));
    try {
      result = commit ? selector.route(sreq, candidates) : selector.select(sreq, candidates);
    } finally {
      requestRandom.remove();
    }
    if (result.chosen() == null) {
      metrics.decision(rt, prepared.mode(), "rejected");
      throw new RoutingException(
          503,
          "no_available_worker",
          "no worker of model '"
              + rt.name()
              + "' can take the request ("
              + result.noChoiceReason()
              + ")");
    }
    CandidateOutcome chosen = result.chosenOutcome().orElseThrow();
    WorkerInstance w = byId.get(chosen.worker().workerId());
    RouteDecision decision =
        new RouteDecision(
            routingId,
            new WorkerRef(
                w.id(),
                chosen.worker().dpRank(),
                w.baseUrl(),
                w.dialect() == null ? "vllm" : w.dialect().id()),
            result.totalBlocks(),
            chosen.overlapBlocks(),
            forwardable(req.images()),
            explanation(rt, prepared, result));
    if (commit) {
      bookedModel.put(routingId, rt);
      publishPrediction(rt, result, chosen);
      metrics.decision(rt, prepared.mode(), "routed");
      metrics.overlap(rt, chosen.overlapBlocks(), result.totalBlocks());
      log.info(
          "[ROUTING] model={} best={} dp={} overlap={}/{} blocks cost={} mode={} candidates={}{} id={}",
          rt.name(),
          w.id(),
          chosen.worker().dpRank(),
          chosen.overlapBlocks(),
          result.totalBlocks(),
          String.format(Locale.ROOT, "%.2f", chosen.cost()),
          prepared.mode(),
          candidates.size(),
          prepared.fallbackReason() == null ? "" : " fallback=" + prepared.fallbackReason(),
          routingId);
      metrics.latency(System.nanoTime() - t0);
    } else {
      metrics.decision(rt, prepared.mode(), "explained");
    }
    return decision;
  }

  private void publishPrediction(ModelRuntime rt, SelectionResult result, CandidateOutcome c) {
    long ttl = result.config().predictionTtlMillis();
    long[] hashes = result.request().localHashes();
    if (!settings.publishPredictions() || ttl <= 0 || hashes.length == 0) {
      return;
    }
    try {
      predictions.publish(
          new Prediction(
              settings.replicaId(),
              rt.name(),
              c.worker(),
              hashes,
              System.currentTimeMillis() + ttl));
    } catch (RuntimeException e) {
      // sharing is best effort: the local decision and prediction stand
      log.debug("prediction publish failed", e);
    }
  }

  private WorkerSelector selector(ModelRuntime rt) {
    SelectorEntry e = selectors.get(rt.name());
    if (e != null && e.runtime() == rt) {
      return e.selector();
    }
    RouterConfig cfg = settings.config();
    ModelCard card = rt.card();
    boolean events =
        card == null || card.routingMode() == null || card.routingMode() == RoutingMode.PRECISE;
    if (!events || !rt.exactCapable()) {
      // no events or pseudo-token prompts: only our own decisions tell where prefixes are
      cfg = withKvEvents(cfg, false);
    }
    WorkerSelector s =
        WorkerSelector.builder(rt.index())
            .tracker(tracker)
            .loadSource(loadSource)
            .config(cfg)
            .random(
                () -> {
                  RandomGenerator g = requestRandom.get();
                  return g != null ? g : ThreadLocalRandom.current();
                })
            .build();
    selectors.put(rt.name(), new SelectorEntry(rt, s));
    return s;
  }

  private static RouterConfig withKvEvents(RouterConfig c, boolean useKvEvents) {
    return new RouterConfig(
        c.overlapScoreCredit(),
        c.prefillLoadScale(),
        c.routerTemperature(),
        c.decodeActiveRequestWeight(),
        c.trackPrefillTokens(),
        c.trackActiveBlocks(),
        useKvEvents,
        c.routerTtlSecs(),
        c.routerPredictedTtlSecs(),
        c.waitingQueueWeight(),
        c.runningRequestsWeight(),
        c.kvUsageWeight(),
        c.metricsStaleSecs(),
        c.activeRequestTtlSecs());
  }

  private static Explanation explanation(
      ModelRuntime rt, PreparedRequest p, SelectionResult result) {
    List<Explanation.Candidate> cands = new ArrayList<>(result.candidates().size());
    for (CandidateOutcome o : result.candidates()) {
      cands.add(
          new Explanation.Candidate(
              o.worker().workerId(),
              o.worker().dpRank(),
              o.overlapBlocks(),
              o.totalBlocks(),
              o.prefillBlocks(),
              o.load().activeBlocks(),
              o.filtered() ? -1.0 : o.cost(),
              o.chosen(),
              o.filteredReason(),
              o.costTerms()));
    }
    return new Explanation(
        rt.name(),
        p.mode(),
        p.fallbackReason(),
        rt.blockSize(),
        p.routingTokens(),
        p.imageTokens(),
        cands);
  }

  private static List<String> forwardable(List<ResolvedImage> images) {
    List<String> out = new ArrayList<>(images.size());
    for (ResolvedImage i : images) {
      out.add(MmHashes.forwardable(i.mmHash()));
    }
    return out;
  }

  private static int ranks(WorkerInstance w) {
    return w.dataParallelSize() == null || w.dataParallelSize() < 1 ? 1 : w.dataParallelSize();
  }

  private static void validate(RouteRequest r) {
    if (r == null || r.model() == null || r.model().isBlank()) {
      throw new RoutingException(400, "invalid_request", "model is required");
    }
    if (r.body() == null || !r.body().isObject()) {
      throw new RoutingException(400, "invalid_request", "body must be a JSON object");
    }
    for (ResolvedImage i : r.images()) {
      if (i == null) {
        throw new RoutingException(400, "invalid_request", "images must not contain null");
      }
    }
  }

  private static long seed(long[] hashes, String model) {
    long h = model.hashCode() * 0x9E3779B97F4A7C15L;
    for (long x : hashes) {
      h = Long.rotateLeft(h ^ x, 27) * 0x9E3779B97F4A7C15L;
    }
    return h ^ hashes.length;
  }

  private static String newRoutingId() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    return "rt-"
        + Long.toHexString(r.nextLong() | Long.MIN_VALUE)
        + Long.toHexString(r.nextLong() | Long.MIN_VALUE);
  }
}
