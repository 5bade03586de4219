package io.sightline.router.engine;

import static io.sightline.router.engine.RouterFixture.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.store.RegistryStore;
import io.sightline.router.api.Explanation;
import io.sightline.router.api.ReleaseRequest;
import io.sightline.router.api.ResolvedImage;
import io.sightline.router.api.RouteDecision;
import io.sightline.router.api.RouteRequest;
import io.sightline.router.api.RoutingException;
import io.sightline.router.model.ModelRuntimes;
import io.sightline.router.state.InMemoryStateHub;
import io.sightline.routing.event.KvEvent;
import io.sightline.routing.index.ApplyOutcome;
import io.sightline.routing.multimodal.MmHashes;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Routing over the real pieces: registry, model runtimes, KV index, selector, shared state. */
class RouterEngineTest {
  private RouterFixture router;
  private RouterFixture other;

  @AfterEach
  void tearDown() {
    if (router != null) {
      router.close();
    }
    if (other != null) {
      other.close();
    }
  }

  static int[] range(int from, int toExclusive) {
    return IntStream.range(from, toExclusive).toArray();
  }

  static RouteRequest completion(String model, int[] ids) {
    StringBuilder sb = new StringBuilder("{\"model\":\"" + model + "\",\"prompt\":[");
    for (int i = 0; i < ids.length; i++) {
      sb.append(i == 0 ? "" : ",").append(ids[i]);
    }
    return new RouteRequest(model, json(sb.append("]}").toString()), List.of(), false);
  }

  static RouteRequest chatWithImages(String model, String text, int images) {
    StringBuilder parts = new StringBuilder("[{\"type\":\"text\",\"text\":\"" + text + "\"}");
    for (int i = 0; i < images; i++) {
      parts.append(",{\"type\":\"image_url\",\"image_url\":{\"url\":\"http://img/").append(i);
      parts.append(".png\"}}");
    }
    parts.append("]");
    return new RouteRequest(
        model,
        json(
            "{\"model\":\""
                + model
                + "\",\"messages\":[{\"role\":\"user\",\"content\":"
                + parts
                + "}]}"),
        List.of(),
        true);
  }

  static RouteRequest withImages(RouteRequest r, ResolvedImage... images) {
    return new RouteRequest(r.model(), r.body(), List.of(images), r.chat());
  }

  static KvEvent.Stored stored(String worker, long seq, long[] hashes, Long parent, int[] tokens) {
    return KvEvent.Stored.of(worker, 0, seq, hashes, parent, tokens, 4);
  }

  static Explanation.Candidate candidate(RouteDecision d, String worker) {
    return d.explanation().candidates().stream()
        .filter(c -> c.workerId().equals(worker))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void routesToTheWorkerHoldingThePrefixFromItsEvents() throws Exception {
    router =
        new RouterFixture(
            RouterFixture.storeWith(RouterFixture.textCard("m", 4), "worker_1", "worker_2"),
            new InMemoryStateHub(),
            "r1");
    assertThat(
            router.runtimes.apply(stored("worker_2", 0, new long[] {11, 12}, null, range(1, 9)), 7))
        .isEqualTo(ApplyOutcome.APPLIED);
    assertThat(router.runtimes.lastStreamSequence()).isEqualTo(7);

    RouteDecision d = router.engine.explain(completion("m", range(1, 11)));
    assertThat(d.worker().workerId()).isEqualTo("worker_2");
    assertThat(d.worker().baseUrl()).isEqualTo("http://worker_2:8000");
    assertThat(d.worker().dialect()).isEqualTo("vllm");
    assertThat(d.totalBlocks()).isEqualTo(2);
    assertThat(d.overlapBlocks()).isEqualTo(2);
    assertThat(d.explanation().mode()).isEqualTo("precise");
    assertThat(d.explanation().routingTokens()).isEqualTo(10);
    assertThat(candidate(d, "worker_1").overlapBlocks()).isZero();
    assertThat(candidate(d, "worker_1").prefillBlocks()).isEqualTo(2);
    assertThat(candidate(d, "worker_2").chosen()).isTrue();
    assertThat(candidate(d, "worker_2").cost()).isLessThan(candidate(d, "worker_1").cost());
    assertThat(candidate(d, "worker_1").costTerms()).isNotEmpty();

    // the worker evicts the second block: overlap drops to 1
    router.runtimes.apply(
        new KvEvent.Removed(
            "worker_2", 0, 1, io.sightline.routing.event.StorageTier.DEVICE, new long[] {12}),
        8);
    assertThat(router.engine.explain(completion("m", range(1, 11))).overlapBlocks()).isEqualTo(1);
    // a prompt diverging in block 0 matches nothing
    int[] other = range(1, 11);
    other[0] = 99;
    assertThat(router.engine.explain(completion("m", other)).overlapBlocks()).isZero();
  }

  @Test
  void explainHasNoSideEffectsAndRouteBooksUntilRelease() throws Exception {
    router =
        new RouterFixture(
            RouterFixture.storeWith(RouterFixture.textCard("m", 4), "worker_1", "worker_2"),
            new InMemoryStateHub(),
            "r1");
    RouteRequest req = completion("m", range(100, 120));
    RouteDecision e1 = router.engine.explain(req);
    RouteDecision e2 = router.engine.explain(req);
    assertThat(e2.explanation()).isEqualTo(e1.explanation());
    assertThat(e2.worker()).isEqualTo(e1.worker());
    assertThat(router.tracker.activeBookings()).isZero();

    RouteDecision r = router.engine.route(req);
    assertThat(r.worker()).as("route answers like explain").isEqualTo(e1.worker());
    assertThat(r.routingId()).startsWith("rt-").isNotEqualTo(e1.routingId());
    assertThat(router.tracker.activeBookings()).isEqualTo(1);

    // the decision is now predicted: the same prompt overlaps fully on the chosen worker
    RouteDecision again = router.engine.explain(req);
    assertThat(candidate(again, r.worker().workerId()).overlapBlocks()).isEqualTo(5);
    // ...and the booked load shows as that worker's decode load
    assertThat(candidate(again, r.worker().workerId()).decodeLoad()).isEqualTo(5.0);

    router.engine.release(new ReleaseRequest(r.routingId(), 40));
    router.engine.release(new ReleaseRequest(r.routingId(), 40)); // idempotent
    router.engine.release(new ReleaseRequest("rt-unknown", null));
    assertThat(router.tracker.activeBookings()).isZero();
    assertThat(router.meters.counter("sightline_router_releases", "cached", "true").count())
        .isEqualTo(1.0);
  }

  @Test
  void bookedLoadSpreadsUnrelatedRequests() throws Exception {
    router =
        new RouterFixture(
            RouterFixture.storeWith(RouterFixture.textCard("m", 4), "worker_1", "worker_2"),
            new InMemoryStateHub(),
            "r1");
    RouteDecision a = router.engine.route(completion("m", range(0, 40)));
    RouteDecision b = router.engine.route(completion("m", range(1000, 1040)));
    assertThat(b.worker().workerId()).isNotEqualTo(a.worker().workerId());
  }

  @Test
  void imagesExpandIntoIdentityTokensSoOnlyTheSameImageOverlaps() throws Exception {
    ModelCard card =
        new ModelCard(
                null,
                "vl",
                null,
                BackendKind.VLLM,
                null,
                "qwen2_5_vl",
                null,
                16,
                null,
                null,
                null,
                null,
                null)
            .withDefaults();
    router =
        new RouterFixture(
            RouterFixture.storeWith(card, "worker_1", "worker_2", "worker_3"),
            new InMemoryStateHub(),
            "r1");
    ResolvedImage cat = new ResolvedImage(MmHashes.ofUrl("http://img/cat.png"), 448, 448);
    ResolvedImage dog = new ResolvedImage(MmHashes.ofUrl("http://img/dog.png"), 448, 448);
    RouteRequest withCat = withImages(chatWithImages("vl", "describe", 1), cat);
    RouteRequest withDog = withImages(chatWithImages("vl", "describe", 1), dog);

    RouteDecision first = router.engine.route(withCat);
    router.engine.release(new ReleaseRequest(first.routingId(), null)); // done; cache stays
    assertThat(first.explanation().mode()).isEqualTo("approximate");
    assertThat(first.explanation().fallbackReason()).isEqualTo("no_tokenizer");
    // 448x448 at 784 px/token (Qwen2.5-VL estimate) = 256 image tokens
    assertThat(first.explanation().imageTokens()).isEqualTo(256);
    assertThat(first.forwardMmHashes()).containsExactly(MmHashes.forwardable(cat.mmHash()));

    RouteDecision sameImage = router.engine.explain(withCat);
    assertThat(sameImage.worker()).isEqualTo(first.worker());
    assertThat(sameImage.overlapBlocks()).isEqualTo(sameImage.totalBlocks());

    RouteDecision otherImage = router.engine.explain(withDog);
    Explanation.Candidate onFirst = candidate(otherImage, first.worker().workerId());
    assertThat(onFirst.overlapBlocks())
        .as("a different picture must not match the cached one")
        .isLessThan(sameImage.overlapBlocks() / 2);
  }

  @Test
  void trtllmWorkersRouteImageAwareOnPredictions() throws Exception {
    // TRT-LLM has no HTTP field for an image id and keys its events on its own BLAKE3 digest
    // (trtllm.md "MM identity"), so image blocks in its events never carry our mm_hash: the
    // image-aware part of the overlap comes from the router's own predictions.
    ModelCard card =
        new ModelCard(
                null,
                "vl-trt",
                null,
                BackendKind.TRTLLM,
                null,
                "qwen2_5_vl",
                null,
                32,
                null,
                null,
                null,
                null,
                null)
            .withDefaults();
    router =
        new RouterFixture(
            RouterFixture.storeWith(card, "trt_1", "trt_2"), new InMemoryStateHub(), "r1");
    ResolvedImage cat = new ResolvedImage(MmHashes.ofUrl("http://img/cat.png"), 640, 480);
    ResolvedImage dog = new ResolvedImage(MmHashes.ofUrl("http://img/dog.png"), 640, 480);
    RouteDecision first = router.engine.route(withImages(chatWithImages("vl-trt", "hi", 1), cat));
    assertThat(first.worker().dialect()).isEqualTo("trtllm");
    router.engine.release(new ReleaseRequest(first.routingId(), null));
    RouteDecision same = router.engine.explain(withImages(chatWithImages("vl-trt", "hi", 1), cat));
    assertThat(same.worker()).isEqualTo(first.worker());
    assertThat(same.overlapBlocks()).isEqualTo(same.totalBlocks()).isPositive();
    RouteDecision other = router.engine.explain(withImages(chatWithImages("vl-trt", "hi", 1), dog));
    assertThat(candidate(other, first.worker().workerId()).overlapBlocks())
        .isLessThan(same.totalBlocks() / 2);
  }

  @Test
  void imageCountMismatchRoutesTextOnlyAndSaysSo() throws Exception {
    ModelCard card =
        new ModelCard(
                null,
                "vl",
                null,
                BackendKind.VLLM,
                null,
                "qwen2_5_vl",
                null,
                16,
                null,
                null,
                null,
                null,
                null)
            .withDefaults();
    router =
        new RouterFixture(RouterFixture.storeWith(card, "worker_1"), new InMemoryStateHub(), "r1");
    RouteDecision d =
        router.engine.explain(chatWithImages("vl", "two pictures", 2)); // none resolved
    assertThat(d.explanation().mode()).isEqualTo("text-only");
    assertThat(d.explanation().fallbackReason()).isEqualTo("image_count_mismatch");
    assertThat(d.explanation().imageTokens()).isZero();
    assertThat(
            router
                .meters
                .counter("sightline_router_fallbacks", "reason", "image_count_mismatch")
                .count())
        .isEqualTo(1.0);
  }

  @Test
  void unknownModelsAndBadRequestsGetClearErrors() throws Exception {
    router =
        new RouterFixture(
            RouterFixture.storeWith(RouterFixture.textCard("m", 4)), new InMemoryStateHub(), "r1");
    assertThatThrownBy(() -> router.engine.route(completion("nope", range(0, 8))))
        .isInstanceOfSatisfying(RoutingException.class, e -> assertThat(e.status()).isEqualTo(404));
    for (int i = 0; i < 50; i++) {
      String junk = "junk-" + i;
      assertThatThrownBy(() -> router.engine.explain(completion(junk, range(0, 8))))
          .isInstanceOf(RoutingException.class);
    }
    assertThat(router.runtimes.all())
        .as("client-chosen model names never create router state")
        .allSatisfy(rt -> assertThat(rt.name()).isEqualTo("m"));
    assertThatThrownBy(() -> router.engine.route(completion("m", range(0, 8))))
        .isInstanceOfSatisfying(
            RoutingException.class, e -> assertThat(e.code()).isEqualTo("no_workers"));
    router.store.putWorker(
        io.sightline.registry.model.WorkerInstance.of(
            "worker_1", "m", "http://w1", BackendKind.VLLM, 4),
        RegistryStore.ANY_REVISION);
    awaitWorkers(router, "m", 1);
    assertThatThrownBy(
            () ->
                router.engine.route(
                    new RouteRequest("m", json("{\"model\":\"m\"}"), List.of(), true)))
        .isInstanceOfSatisfying(RoutingException.class, e -> assertThat(e.status()).isEqualTo(400));
    assertThatThrownBy(
            () -> router.engine.route(new RouteRequest("m", json("[1,2]"), List.of(), false)))
        .isInstanceOfSatisfying(RoutingException.class, e -> assertThat(e.status()).isEqualTo(400));
  }

  @Test
  void logsOneGreppableLinePerDecision() throws Exception {
    router =
        new RouterFixture(
            RouterFixture.storeWith(RouterFixture.textCard("m", 4), "worker_1"),
            new InMemoryStateHub(),
            "r1");
    Logger logger = (Logger) LoggerFactory.getLogger(RouterEngine.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      router.runtimes.apply(stored("worker_1", 0, new long[] {1}, null, range(0, 4)), -1);
      router.engine.explain(completion("m", range(0, 12)));
      RouteDecision d = router.engine.route(completion("m", range(0, 12)));
      assertThat(appender.list).hasSize(1);
      assertThat(appender.list.get(0).getFormattedMessage())
          .matches(
              "\\[ROUTING\\] model=m best=worker_1 dp=0 overlap=1/3 blocks cost=\\d+\\.\\d\\d mode=precise"
                  + " candidates=1 id="
                  + d.routingId());
    } finally {
      logger.detachAppender(appender);
    }
  }

  @Test
  void replicasSharePredictionsAndLoad() throws Exception {
    InMemoryStateHub hub = new InMemoryStateHub();
    RegistryStore store =
        RouterFixture.storeWith(RouterFixture.textCard("m", 4), "worker_1", "worker_2", "worker_3");
    router = new RouterFixture(store, hub, "r1");
    other = new RouterFixture(store, hub, "r2");
    RouteRequest req = completion("m", range(500, 540));
    RouteDecision a = router.engine.route(req);
    router.sync();
    other.sync();
    RouteDecision b = other.engine.explain(req);
    assertThat(candidate(b, a.worker().workerId()).overlapBlocks())
        .as("r2 learned r1's prediction")
        .isEqualTo(10);
    assertThat(candidate(b, a.worker().workerId()).decodeLoad())
        .as("r2 sees r1's booked load")
        .isEqualTo(10.0);

    // r1's request completes: its load disappears from r2's view, the predicted cache stays
    router.engine.release(new ReleaseRequest(a.routingId(), null));
    router.sync();
    other.sync();
    RouteDecision c = other.engine.explain(req);
    assertThat(candidate(c, a.worker().workerId()).decodeLoad()).isZero();
    assertThat(c.worker()).isEqualTo(a.worker());
    assertThat(c.overlapBlocks()).isEqualTo(10);
  }

  @Test
  void snapshotRestoresAnEquivalentIndexInAFreshReplica() throws Exception {
    RegistryStore store =
        RouterFixture.storeWith(RouterFixture.textCard("m", 4), "worker_1", "worker_2");
    router = new RouterFixture(store, new InMemoryStateHub(), "r1");
    router.runtimes.apply(stored("worker_1", 0, new long[] {1, 2}, null, range(0, 8)), 1);
    router.runtimes.apply(stored("worker_1", 1, new long[] {3}, 2L, range(8, 12)), 2);
    router.runtimes.apply(stored("worker_2", 0, new long[] {7}, null, range(0, 4)), 3);
    router.runtimes.apply(stored("worker_2", 1, new long[] {8}, 7L, range(50, 54)), 4);
    router.runtimes.apply(
        new KvEvent.Removed(
            "worker_1", 0, 2, io.sightline.routing.event.StorageTier.DEVICE, new long[] {3}),
        5);
    ModelRuntimes.Snapshot snap = router.runtimes.snapshot();
    assertThat(snap.streamSequence()).isEqualTo(5);

    other = new RouterFixture(store, new InMemoryStateHub(), "r2");
    assertThat(other.runtimes.restore(snap.data())).isEqualTo(5);
    for (int[] prompt :
        List.of(range(0, 16), range(0, 4), new int[] {0, 1, 2, 3, 50, 51, 52, 53})) {
      RouteDecision x = router.engine.explain(completion("m", prompt));
      RouteDecision y = other.engine.explain(completion("m", prompt));
      assertThat(y.explanation()).isEqualTo(x.explanation());
    }
    assertThat(other.runtimes.forModel("m").index().stats().entries())
        .isEqualTo(router.runtimes.forModel("m").index().stats().entries());
    assertThatThrownBy(() -> other.runtimes.restore(new byte[] {1, 2, 3}))
        .isInstanceOf(java.io.IOException.class);
  }

  @Test
  void cardChangesReloadTheModel() throws Exception {
    router =
        new RouterFixture(
            RouterFixture.storeWith(RouterFixture.textCard("m", 4), "worker_1"),
            new InMemoryStateHub(),
            "r1");
    assertThat(router.runtimes.forModel("m").blockSize()).isEqualTo(4);
    router.store.putModel(RouterFixture.textCard("m", 8), RegistryStore.ANY_REVISION);
    long deadline = System.currentTimeMillis() + 5_000;
    while (router.runtimes.forModel("m").blockSize() != 8
        && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
    assertThat(router.runtimes.forModel("m").blockSize()).isEqualTo(8);
    assertThat(router.engine.explain(completion("m", range(0, 16))).totalBlocks()).isEqualTo(2);
  }

  static void awaitWorkers(RouterFixture f, String model, int n) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 5_000;
    while (f.registry.workers(model).size() < n && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
  }
}
