package io.sightline.adapter.vllm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/** Real ZMQ sockets on loopback against {@link FakeVllmPublisher}. */
@Timeout(30)
class VllmEventStreamTest {

  /** Records everything in order; "C" marks a resync. */
  static final class Recorder implements VllmEventStream.Listener {
    final List<String> log = new CopyOnWriteArrayList<>();
    final List<Long> gaps = new CopyOnWriteArrayList<>();

    @Override
    public void onBatch(long sequence, VllmEventBatch batch, boolean replayed) {
      var s = (VllmKvEvent.BlockStored) batch.events().get(0);
      log.add(sequence + ":" + s.blockHashes()[0]);
    }

    @Override
    public void onResync(String reason) {
      log.add("C");
    }

    @Override
    public void onGap(long expected, long received, boolean closed) {
      gaps.add(closed ? expected : -expected - 1);
    }
  }

  static byte[] batch(long hash) throws Exception {
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    p.packArrayHeader(3).packDouble(0).packArrayHeader(1);
    p.packArrayHeader(5).packString("BlockStored").packArrayHeader(1).packLong(hash).packNil();
    p.packArrayHeader(1).packInt(1).packInt(1);
    p.packInt(0);
    return p.toByteArray();
  }

  static void await(BooleanSupplier cond) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met in time");
      }
      Thread.sleep(20);
    }
  }

  /** Waits until the SUB is connected by publishing until the stream reports progress. */
  @Test
  void catchesUpOnStartAndFillsHolesFromReplay() throws Exception {
    try (FakeVllmPublisher pub = new FakeVllmPublisher(100)) {
      pub.publish(batch(100), true); // before anyone subscribed
      pub.publish(batch(101), true);
      Recorder rec = new Recorder();
      try (VllmEventStream stream =
          new VllmEventStream(
              VllmEventStream.Config.of(pub.endpoint(), pub.replayEndpoint()), rec)) {
        stream.start();
        await(() -> rec.log.size() >= 2);
        Thread.sleep(300); // let the SUB connect before publishing live
        pub.publish(batch(102), false);
        pub.publish(batch(103), true); // lost on the wire
        pub.publish(batch(104), true);
        pub.publish(batch(105), false);
        await(() -> rec.log.size() >= 6);
        assertThat(rec.log).containsExactly("0:100", "1:101", "2:102", "3:103", "4:104", "5:105");
        assertThat(rec.gaps).containsExactly(3L);
        assertThat(stream.lastSequence()).isEqualTo(5);
      }
    }
  }

  @Test
  void unreplayableHoleResyncsAndRebuildsFromTheBuffer() throws Exception {
    try (FakeVllmPublisher pub = new FakeVllmPublisher(2)) {
      Recorder rec = new Recorder();
      try (VllmEventStream stream =
          new VllmEventStream(
              VllmEventStream.Config.of(pub.endpoint(), pub.replayEndpoint()), rec)) {
        stream.start();
        Thread.sleep(300);
        pub.publish(batch(200), false);
        await(() -> rec.log.size() >= 1);
        for (int i = 1; i <= 4; i++) {
          pub.publish(batch(200 + i), true); // buffer keeps only the last 2
        }
        pub.publish(batch(205), false);
        await(() -> rec.log.contains("5:205"));
        // resync, then the still-buffered batch 4, then the live batch 5
        assertThat(rec.log).containsExactly("0:200", "C", "4:204", "5:205");
        assertThat(rec.gaps).containsExactly(-2L);
      }
    }
  }

  @Test
  void withoutReplayAHoleResyncsAndARestartResyncs() throws Exception {
    try (FakeVllmPublisher pub = new FakeVllmPublisher(10)) {
      Recorder rec = new Recorder();
      try (VllmEventStream stream =
          new VllmEventStream(VllmEventStream.Config.of(pub.endpoint(), null), rec)) {
        stream.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        // no replay: retry until the SUB is connected and sees a first batch
        while (rec.log.isEmpty() && System.nanoTime() < deadline) {
          pub.restart();
          pub.publish(batch(300), false);
          Thread.sleep(100);
        }
        pub.publish(batch(301), true);
        pub.publish(batch(302), false);
        await(() -> rec.log.contains("2:302"));
        pub.restart();
        pub.publish(batch(400), false);
        await(() -> rec.log.contains("0:400"));
        assertThat(rec.log).containsSubsequence("0:300", "C", "2:302", "C", "0:400");
        assertThat(rec.log).doesNotContain("1:301");
      }
    }
  }

  @Test
  void aReconnectCatchesUpThroughReplayWithoutNewTraffic() throws Exception {
    try (FakeVllmPublisher pub = new FakeVllmPublisher(100)) {
      Recorder rec = new Recorder();
      List<String> reconnects = new CopyOnWriteArrayList<>();
      VllmEventStream.Listener listener =
          new VllmEventStream.Listener() {
            @Override
            public void onBatch(long sequence, VllmEventBatch batch, boolean replayed) {
              rec.onBatch(sequence, batch, replayed);
            }

            @Override
            public void onResync(String reason) {
              rec.onResync(reason);
            }

            @Override
            public void onReconnect() {
              reconnects.add("r");
            }
          };
      try (VllmEventStream stream =
          new VllmEventStream(
              VllmEventStream.Config.of(pub.endpoint(), pub.replayEndpoint()), listener)) {
        stream.start();
        Thread.sleep(300);
        pub.publish(batch(500), false);
        await(() -> rec.log.size() == 1);
        pub.closePub();
        pub.publish(batch(501), true); // published while the subscriber is cut off
        pub.publish(batch(502), true);
        Thread.sleep(300);
        pub.reopenPub();
        await(() -> rec.log.size() == 3); // no further live batch is needed
        assertThat(rec.log).containsExactly("0:500", "1:501", "2:502");
        assertThat(reconnects).isNotEmpty();
      }
    }
  }
}
