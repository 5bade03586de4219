package io.sightline.routing.selection;

import io.sightline.routing.index.KvIndex;
import io.sightline.routing.index.OverlapScores;
import io.sightline.routing.index.WorkerKey;
import io.sightline.routing.index.WorkerOverlap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Chooses the worker rank for a request: {@link KvIndex} overlap → filters → cost scorers → picker,
 * a small plugin pipeline in the spirit of llm-d's EPP ({@code ../shared/reference/llmd.md} §4)
 * whose default policy is Dynamo's cost ({@link DynamoCostScorer}, {@link SoftmaxPicker}; {@code
 * dynamo.md} §4).
 *
 * <p>{@link #select} has no side effects (it backs "explain"); {@link #commit} books the decision:
 * the request's uncached prompt tokens and blocks go to the chosen worker's load ({@link
 * LoadTracker}) and the chosen worker is predicted to hold the request's blocks for a TTL
 * (speculative 2 s with KV events, approximate 120 s without). {@link #route} does both. Every
 * result explains each candidate: overlap / total blocks, cost terms, probability, and the filter
 * that excluded it.
 *
 * <p>Thread-safe: the index query is lock-free and load is read from atomics.
 */
public final class WorkerSelector {
  private final KvIndex index;
  private final LoadTracker tracker;
  private final LoadSource loadSource;
  private final List<CandidateFilter> filters;
  private final List<CostScorer> scorers;
  private final Picker picker;
  private final RouterConfig config;
  private final Supplier<RandomGenerator> random;
  private final LongSupplier wallClockMillis;

  private WorkerSelector(Builder b) {
    this.index = Objects.requireNonNull(b.index, "index");
    this.tracker = b.tracker != null ? b.tracker : new LoadTracker();
    this.loadSource = b.loadSource != null ? b.loadSource : tracker;
    this.filters = List.copyOf(b.filters);
    this.scorers = List.copyOf(b.scorers);
    this.picker = b.picker;
    this.config = b.config;
    this.random = b.random;
    this.wallClockMillis = b.wallClockMillis;
  }

  public static Builder builder(KvIndex index) {
    return new Builder(index);
  }

  public KvIndex index() {
    return index;
  }

  public LoadTracker tracker() {
    return tracker;
  }

  public RouterConfig config() {
    return config;
  }

  /** Decides without side effects. */
  public SelectionResult select(SelectionRequest request, List<WorkerCandidate> candidates) {
    RouterConfig cfg = config.apply(request.override());
    SelectionContext ctx = new SelectionContext(request, cfg, wallClockMillis.getAsLong());
    if (candidates.isEmpty()) {
      return new SelectionResult(request, cfg, null, "no_candidates", List.of());
    }
    OverlapScores overlaps = index.query(request.localHashes());
    int total = request.localHashes().length;
    int n = candidates.size();
    CandidateView[] views = new CandidateView[n];
    String[] filteredBy = new String[n];
    String[] reasons = new String[n];
    Map<String, Double>[] terms = newTermsArray(n);
    double[] costs = new double[n];
    int[] passing = new int[n];
    int np = 0;
    for (int i = 0; i < n; i++) {
      WorkerCandidate c = candidates.get(i);
      WorkerOverlap o = overlaps.of(c.worker());
      views[i] = new CandidateView(c, o, loadSource.load(c.worker()));
      for (CandidateFilter f : filters) {
        String r = f.reject(ctx, views[i]);
        if (r != null) {
          filteredBy[i] = f.name();
          reasons[i] = r;
          break;
        }
      }
      if (reasons[i] != null) {
        costs[i] = Double.NaN;
        terms[i] = Map.of();
        continue;
      }
      CostTerms t = new CostTerms();
      for (CostScorer s : scorers) {
        s.score(ctx, views[i], t);
      }
      terms[i] = t.asMap();
      costs[i] = t.total();
      passing[np++] = i;
    }
    double[] probs = new double[n];
    WorkerKey chosen = null;
    int chosenIdx = -1;
    if (np > 0) {
      double[] pc = new double[np];
      for (int k = 0; k < np; k++) {
        pc[k] = costs[passing[k]];
      }
      double[] pp = new double[np];
      int pick = picker.pick(pc, cfg.routerTemperature(), random.get(), pp);
      for (int k = 0; k < np; k++) {
        probs[passing[k]] = pp[k];
      }
      chosenIdx = passing[pick];
      chosen = candidates.get(chosenIdx).worker();
    }
    List<CandidateOutcome> outcomes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      outcomes.add(
          new CandidateOutcome(
              views[i].candidate().worker(),
              views[i].overlap(),
              total,
              views[i].load(),
              terms[i],
              costs[i],
              probs[i],
              i == chosenIdx,
              filteredBy[i],
              reasons[i]));
    }
    return new SelectionResult(
        request, cfg, chosen, chosen == null ? "all_filtered" : null, outcomes);
  }

  /** Books a decision: load on the chosen worker and a prediction of its blocks. */
  public void commit(SelectionResult result) {
    Optional<CandidateOutcome> chosen = result.chosenOutcome();
    if (chosen.isEmpty()) {
      return;
    }
    SelectionRequest req = result.request();
    RouterConfig cfg = result.config();
    CandidateOutcome c = chosen.get();
    long cached = (long) c.overlapBlocks() * req.blockSize();
    tracker.book(
        req.requestId(),
        c.worker(),
        Math.max(0, req.inputTokens() - cached),
        req.requestBlocks(),
        Math.min(cached, req.inputTokens()),
        (long) (cfg.activeRequestTtlSecs() * 1e9));
    index.predict(c.worker(), req.localHashes(), cfg.predictionTtlMillis());
  }

  /** {@link #select} then {@link #commit}. */
  public SelectionResult route(SelectionRequest request, List<WorkerCandidate> candidates) {
    SelectionResult r = select(request, candidates);
    commit(r);
    return r;
  }

  /** Ends a request's load; see {@link LoadTracker#release}. */
  public Optional<LoadTracker.Released> release(String requestId, Integer cachedTokens) {
    return tracker.release(requestId, cachedTokens);
  }

  /** The request's prompt has been prefilled (first token); see {@link LoadTracker}. */
  public boolean markPrefillDone(String requestId) {
    return tracker.markPrefillDone(requestId);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Double>[] newTermsArray(int n) {
    return (Map<String, Double>[]) new Map<?, ?>[n];
  }

  /**
   * Builds a selector; defaults: Dynamo cost + metrics scorers, default filters, softmax picker.
   */
  public static final class Builder {
    private final KvIndex index;
    private LoadTracker tracker;
    private LoadSource loadSource;
    private List<CandidateFilter> filters = Filters.defaults();
    private List<CostScorer> scorers = List.of(new DynamoCostScorer(), new MetricsCostScorer());
    private Picker picker = new SoftmaxPicker();
    private RouterConfig config = RouterConfig.DEFAULTS;
    private Supplier<RandomGenerator> random = ThreadLocalRandom::current;
    private LongSupplier wallClockMillis = System::currentTimeMillis;

    private Builder(KvIndex index) {
      this.index = index;
    }

    public Builder tracker(LoadTracker t) {
      this.tracker = t;
      return this;
    }

    /** Where load is read (default: the tracker); e.g. a sum over router replicas. */
    public Builder loadSource(LoadSource s) {
      this.loadSource = s;
      return this;
    }

    public Builder filters(List<CandidateFilter> f) {
      this.filters = List.copyOf(f);
      return this;
    }

    public Builder scorers(List<CostScorer> s) {
      this.scorers = List.copyOf(s);
      return this;
    }

    public Builder picker(Picker p) {
      this.picker = Objects.requireNonNull(p);
      return this;
    }

    public Builder config(RouterConfig c) {
      this.config = Objects.requireNonNull(c);
      return this;
    }

    public Builder random(Supplier<RandomGenerator> r) {
      this.random = Objects.requireNonNull(r);
      return this;
    }

    public Builder wallClockMillis(LongSupplier c) {
      this.wallClockMillis = Objects.requireNonNull(c);
      return this;
    }

    public WorkerSelector build() {
      return new WorkerSelector(this);
    }
  }
}
