package io.sightline.router.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The {@link KvEventBus} contract; run over the in-process bus and real NATS JetStream. */
@Timeout(60)
abstract class KvEventBusContract {

  KvEventBus bus;

  abstract KvEventBus newBus() throws Exception;

  @BeforeEach
  void open() throws Exception {
    bus = newBus();
  }

  @AfterEach
  void shut() {
    bus.close();
  }

  static EventBatchMessage message(String worker, int rank, long sourceSeq, long planeSeq) {
    List<KvEvent> events = new ArrayList<>();
    events.add(
        new KvEvent.Stored(
            worker,
            rank,
            planeSeq,
            StorageTier.DEVICE,
            new long[] {sourceSeq, -sourceSeq - 1},
            sourceSeq == 0 ? null : sourceSeq - 1,
            new int[] {1, 2, 3, 4},
            2,
            List.of(new long[0], new long[] {42L, -7L}),
            "lora",
            null));
    events.add(new KvEvent.Removed(worker, rank, planeSeq + 1, StorageTier.HOST, new long[] {9}));
    events.add(new KvEvent.Cleared(worker, rank, planeSeq + 2));
    return new EventBatchMessage(worker, rank, sourceSeq, events);
  }

  static void await(BooleanSupplier c) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out");
      }
      Thread.sleep(10);
    }
  }

  @Test
  void deliversEveryMessageInOrderToEverySubscriberAndRoundTripsEvents() throws Exception {
    List<EventBatchMessage> a = new CopyOnWriteArrayList<>();
    List<EventBatchMessage> b = new CopyOnWriteArrayList<>();
    try (AutoCloseable s1 = bus.subscribe(0, (m, seq) -> a.add(m));
        AutoCloseable s2 = bus.subscribe(0, (m, seq) -> b.add(m))) {
      List<EventBatchMessage> sent = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        EventBatchMessage m = message(i % 2 == 0 ? "w.a>*" : "w b", i % 3, i, i * 3L);
        sent.add(m);
        bus.publish(m);
      }
      await(() -> a.size() == 50 && b.size() == 50);
      assertThat(a).isEqualTo(sent);
      assertThat(b).isEqualTo(sent);
    }
  }

  @Test
  void lastReturnsTheNewestMessageOfAWorkerRank() throws Exception {
    assertThat(bus.last("nobody", 0)).isEmpty();
    bus.publish(message("w1", 0, 5, 10));
    bus.publish(message("w1", 1, 6, 20));
    bus.publish(message("w1", 0, 7, 30));
    assertThat(bus.last("w1", 0)).get().extracting(EventBatchMessage::sourceSequence).isEqualTo(7L);
    assertThat(bus.last("w1", 0).get().lastEventSequence()).isEqualTo(32);
    assertThat(bus.last("w1", 1).get().sourceSequence()).isEqualTo(6);
  }

  @Test
  void durableBusReplaysFromAStreamPosition() throws Exception {
    if (!bus.durable()) {
      return;
    }
    for (int i = 0; i < 10; i++) {
      bus.publish(message("w", 0, i, i * 3L));
    }
    List<Long> positions = new CopyOnWriteArrayList<>();
    List<Long> sources = new CopyOnWriteArrayList<>();
    try (AutoCloseable all = bus.subscribe(0, (m, seq) -> positions.add(seq))) {
      await(() -> positions.size() == 10);
    }
    long fifth = positions.get(4);
    try (AutoCloseable late = bus.subscribe(fifth, (m, seq) -> sources.add(m.sourceSequence()))) {
      await(() -> sources.size() == 5);
      assertThat(sources).containsExactly(5L, 6L, 7L, 8L, 9L);
    }
  }
}
