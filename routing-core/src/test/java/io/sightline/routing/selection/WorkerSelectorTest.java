package io.sightline.routing.selection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import io.sightline.routing.hashing.BlockHasher;
import io.sightline.routing.index.IndexConfig;
import io.sightline.routing.index.KvIndex;
import io.sightline.routing.index.StoredBlockConverter;
import io.sightline.routing.index.WorkerKey;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WorkerSelectorTest {
  private static final int B = 16;
  private final AtomicLong nanos = new AtomicLong();
  private final KvIndex index =
      new KvIndex(StoredBlockConverter.textOnly(B), IndexConfig.DEFAULTS, nanos::get);
  private final LoadTracker tracker = new LoadTracker(nanos::get);
  private final SplittableRandom rnd = new SplittableRandom(7);

  private WorkerSelector selector(RouterConfig cfg) {
    return WorkerSelector.builder(index)
        .tracker(tracker)
        .config(cfg)
        .random(() -> rnd)
        .wallClockMillis(() -> 1_000_000L)
        .build();
  }

  private static int[] prompt(int blocks) {
    int[] t = new int[blocks * B];
    for (int i = 0; i < t.length; i++) {
      t[i] = 7 + i;
    }
    return t;
  }

  private void store(String worker, int[] tokens, int blocks, StorageTier tier) {
    long[] hashes = new long[blocks];
    for (int i = 0; i < blocks; i++) {
      hashes[i] = 1000 + i;
    }
    index.apply(
        new KvEvent.Stored(
            worker,
            0,
            -1,
            tier,
            hashes,
            null,
            Arrays.copyOf(tokens, blocks * B),
            B,
            null,
            null,
            null));
  }

  private static SelectionRequest request(String id, int[] tokens) {
    return new SelectionRequest(
        id, "m", null, BlockHasher.of(B).localHashes(tokens), tokens.length, B, null);
  }

  private static List<WorkerCandidate> candidates(String... ids) {
    return Arrays.stream(ids).map(id -> WorkerCandidate.of(id, 0, "m")).toList();
  }

  @Test
  void prefersTheWorkerWithTheLongestCachedPrefixAndExplainsCosts() {
    int[] t = prompt(10);
    store("a", t, 8, StorageTier.DEVICE);
    store("b", t, 2, StorageTier.DEVICE);
    SelectionResult r =
        selector(RouterConfig.DEFAULTS).select(request("r1", t), candidates("a", "b", "c"));
    assertThat(r.chosen()).isEqualTo(new WorkerKey("a", 0));
    Map<String, CandidateOutcome> by = new HashMap<>();
    r.candidates().forEach(c -> by.put(c.worker().workerId(), c));
    // Dynamo: prefill = (0 + isl)/B - credit*overlap ; decode = active blocks (0)
    assertThat(by.get("a").costTerms()).containsEntry("prefill", 2.0).containsEntry("decode", 0.0);
    assertThat(by.get("b").cost()).isEqualTo(8.0);
    assertThat(by.get("c").cost()).isEqualTo(10.0);
    assertThat(by.get("a").overlapBlocks()).isEqualTo(8);
    assertThat(by.get("a").prefillBlocks()).isEqualTo(2);
    assertThat(by.get("a").probability()).isEqualTo(1.0);
    assertThat(r.overlapBlocks()).isEqualTo(8);
    assertThat(tracker.activeBookings()).isZero(); // select has no side effects
  }

  @Test
  void creditAndLowerTiersFollowDynamo() {
    int[] t = prompt(8);
    store("a", t, 4, StorageTier.HOST);
    var cfg = RouterConfig.DEFAULTS.apply(new RouterConfigOverride(0.5, 2.0, null, null));
    SelectionResult r = selector(cfg).select(request("r", t), candidates("a"));
    // raw 8 - (0.75*4) = 5, scaled by prefill_load_scale 2
    assertThat(r.candidates().get(0).costTerms().get("prefill")).isCloseTo(10.0, within(1e-9));
    store("b", t, 4, StorageTier.DEVICE);
    r = selector(cfg).select(request("r", t), candidates("b"));
    assertThat(r.candidates().get(0).costTerms().get("prefill")).isCloseTo(12.0, within(1e-9));
  }

  @Test
  void legacyOverlapScoreWeightZeroIgnoresCache() {
    var cfg = RouterConfig.DEFAULTS.withOverlapScoreWeight(0);
    assertThat(cfg.prefillLoadScale()).isZero();
    assertThat(cfg.overlapScoreCredit()).isZero();
  }

  @Test
  void loadBalancesAwayFromABusyWorkerAndReleaseRestoresIt() {
    int[] t = prompt(4);
    WorkerSelector s = selector(RouterConfig.DEFAULTS);
    SelectionResult first = s.route(request("r1", t), candidates("a", "b"));
    WorkerKey w1 = first.chosen();
    assertThat(tracker.load(w1)).isEqualTo(new WorkerLoad(64, 4, 1));
    // the same prompt again: the first worker now is predicted to hold it (credit 4) but carries
    // 64 queued prefill tokens (4 blocks) and 4 active blocks → cost 4+4=8 vs 4 for the idle one
    SelectionResult second = s.select(request("r2", t), candidates("a", "b"));
    assertThat(second.chosen()).isNotEqualTo(w1);
    s.markPrefillDone("r1");
    assertThat(tracker.load(w1).activePrefillTokens()).isZero();
    assertThat(s.release("r1", 64)).isPresent();
    assertThat(tracker.load(w1)).isEqualTo(WorkerLoad.IDLE);
    assertThat(s.release("r1", 64)).isEmpty();
    assertThat(tracker.stats().actualCachedTokens()).isEqualTo(64);
  }

  @Test
  void bookingsExpireWhenNoReleaseComes() {
    WorkerSelector s = selector(RouterConfig.DEFAULTS.withActiveRequestTtlSecs(5));
    s.route(request("r1", prompt(2)), candidates("a"));
    assertThat(tracker.load(new WorkerKey("a", 0)).activeRequests()).isEqualTo(1);
    nanos.addAndGet(6_000_000_000L);
    assertThat(tracker.expire()).isEqualTo(1);
    assertThat(tracker.load(new WorkerKey("a", 0))).isEqualTo(WorkerLoad.IDLE);
    assertThat(tracker.stats().expired()).isEqualTo(1);
  }

  @Test
  void speculativePredictionsExpireAfterTwoSecondsApproximateAfter120() {
    int[] t = prompt(3);
    selector(RouterConfig.DEFAULTS).route(request("r1", t), candidates("a"));
    long[] local = BlockHasher.of(B).localHashes(t);
    assertThat(index.query(local).of(new WorkerKey("a", 0)).predictedBlocks()).isEqualTo(3);
    nanos.addAndGet(2_100_000_000L);
    assertThat(index.query(local).overlaps()).isEmpty();
    selector(RouterConfig.DEFAULTS.withUseKvEvents(false)).route(request("r2", t), candidates("a"));
    nanos.addAndGet(119_000_000_000L);
    assertThat(index.query(local).of(new WorkerKey("a", 0)).matchedBlocks()).isEqualTo(3);
    nanos.addAndGet(2_000_000_000L);
    assertThat(index.query(local).overlaps()).isEmpty();
  }

  @Test
  void filtersExplainWhyCandidatesWereExcluded() {
    var sick =
        new WorkerCandidate(new WorkerKey("sick", 0), false, false, Set.of("m"), Set.of(), 0, null);
    var drain =
        new WorkerCandidate(new WorkerKey("drain", 0), true, true, Set.of("m"), Set.of(), 0, null);
    var other = WorkerCandidate.of("other", 0, "n");
    var full =
        new WorkerCandidate(
            new WorkerKey("full", 0), true, false, Set.of("m"), Set.of("l1"), 1, null);
    var ok =
        new WorkerCandidate(
            new WorkerKey("ok", 0), true, false, Set.of("m"), Set.of("l1"), 0, null);
    tracker.book("x", full.worker(), 0, 1, 0, 1_000_000_000_000L);
    int[] t = prompt(2);
    var req =
        new SelectionRequest("r", "m", "l1", BlockHasher.of(B).localHashes(t), t.length, B, null);
    var nolora = WorkerCandidate.of("nolora", 0, "m");
    SelectionResult r =
        selector(RouterConfig.DEFAULTS).select(req, List.of(sick, drain, other, full, nolora, ok));
    assertThat(r.candidates())
        .extracting(CandidateOutcome::filteredReason)
        .containsExactly(
            "unhealthy", "draining", "model_not_served", "capacity", "lora_not_loaded", null);
    assertThat(r.chosen()).isEqualTo(ok.worker());
    SelectionResult none = selector(RouterConfig.DEFAULTS).select(req, List.of(sick));
    assertThat(none.chosen()).isNull();
    assertThat(none.noChoiceReason()).isEqualTo("all_filtered");
    assertThat(selector(RouterConfig.DEFAULTS).select(req, List.of()).noChoiceReason())
        .isEqualTo("no_candidates");
  }

  @Test
  void metricsScorerAddsTermsOnlyForFreshMetrics() {
    var cfg = RouterConfig.DEFAULTS.withMetricWeights(1.0, 0.5, 10.0);
    var fresh = WorkerCandidate.of("a", 0, "m").withMetrics(new WorkerMetrics(3, 4, 0.5, 999_500L));
    var stale =
        WorkerCandidate.of("b", 0, "m").withMetrics(new WorkerMetrics(30, 40, 1.0, 990_000L));
    SelectionResult r = selector(cfg).select(request("r", prompt(1)), List.of(fresh, stale));
    assertThat(r.candidates().get(0).costTerms())
        .containsEntry("waiting_queue", 3.0)
        .containsEntry("running_requests", 2.0)
        .containsEntry("kv_usage", 5.0);
    assertThat(r.candidates().get(1).costTerms()).doesNotContainKey("waiting_queue");
  }

  @Test
  void zeroTemperatureBreaksTiesUniformly() {
    WorkerSelector s = selector(RouterConfig.DEFAULTS);
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 3000; i++) {
      SelectionResult r = s.select(request("r" + i, prompt(1)), candidates("a", "b", "c"));
      counts.merge(r.chosen().workerId(), 1, Integer::sum);
      assertThat(r.candidates())
          .allSatisfy(c -> assertThat(c.probability()).isCloseTo(1 / 3.0, within(1e-12)));
    }
    assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(850, 1150));
  }

  @Test
  void softmaxFollowsDynamoFormula() {
    double[] costs = {0.0, 5.0, 10.0};
    double[] p = new double[3];
    new SoftmaxPicker().pick(costs, 0.5, new SplittableRandom(1), p);
    double e0 = 1;
    double e1 = Math.exp(-0.5 / 0.5);
    double e2 = Math.exp(-1.0 / 0.5);
    double sum = e0 + e1 + e2;
    assertThat(p[0]).isCloseTo(e0 / sum, within(1e-12));
    assertThat(p[1]).isCloseTo(e1 / sum, within(1e-12));
    assertThat(p[2]).isCloseTo(e2 / sum, within(1e-12));
    int[] hits = new int[3];
    SplittableRandom r = new SplittableRandom(3);
    for (int i = 0; i < 20000; i++) {
      hits[new SoftmaxPicker().pick(costs, 0.5, r, p)]++;
    }
    assertThat(hits[0] / 20000.0).isCloseTo(e0 / sum, within(0.02));
    assertThat(hits[2] / 20000.0).isCloseTo(e2 / sum, within(0.02));
  }

  @Test
  void invalidKnobsAreRejectedWithTheirDynamoNames() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> RouterConfig.DEFAULTS.apply(new RouterConfigOverride(1.5, null, null, null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("overlap_score_credit");
  }
}
