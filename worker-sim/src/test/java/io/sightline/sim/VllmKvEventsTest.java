package io.sightline.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.sim.cache.PrefixCache;
import io.sightline.sim.engine.TimingModel;
import io.sightline.sim.events.VllmEventEncoder;
import io.sightline.sim.http.Json;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ArrayValue;
import org.msgpack.value.MapValue;
import org.msgpack.value.Value;
import org.msgpack.value.ValueFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The ZMQ event stream read with an independent decoder (msgpack-java's generic {@link Value}s on
 * the raw frames): stored blocks equal the worker's own cache view, eviction emits removals, and
 * the replay socket returns batches the subscriber missed.
 */
class VllmKvEventsTest {

  record Batch(long seq, List<Value> events) {}

  @ParameterizedTest
  @EnumSource(VllmEventEncoder.Format.class)
  void storedAndRemovedEventsMatchTheCacheAndReplayFillsGaps(VllmEventEncoder.Format format)
      throws Exception {
    // 12 blocks of 16 tokens: a 3-block prompt + 1 output block fits three times, then evicts.
    SimOptions options =
        SimOptions.defaults()
            .withServedModelName("m")
            .withHashSeed("0")
            .withNumBlocks(12)
            .withEventFormat(format)
            .withTopic("kv@sim@m")
            .withTiming(TimingModel.DEFAULT.withSpeedup(Double.POSITIVE_INFINITY));
    try (SimulatedWorker worker = SimulatedWorker.start(options);
        ZContext ctx = new ZContext()) {
      ZMQ.Socket sub = ctx.createSocket(SocketType.SUB);
      sub.connect(worker.eventEndpoint());
      sub.subscribe("kv@".getBytes());
      sub.setReceiveTimeOut(5000);
      ZmqTestSupport.awaitSubscription(worker, sub);

      Set<Long> stored = new HashSet<>();
      Set<Long> removed = new HashSet<>();
      List<Batch> received = new ArrayList<>();
      for (int p = 0; p < 5; p++) {
        completion(worker, p, 48);
        worker.flushEvents();
      }
      drain(sub, received, 5);
      for (Batch b : received) {
        for (Value e : b.events()) {
          Decoded d = decode(e);
          if (d.type().equals("BlockStored")) {
            stored.addAll(d.hashes());
            assertThat(d.blockSize()).isEqualTo(16);
            assertThat(d.tokenCount()).isEqualTo(16 * d.hashes().size());
          } else if (d.type().equals("BlockRemoved")) {
            removed.addAll(d.hashes());
          }
        }
      }
      // 5 prompts x 3 full blocks stored; the pool only holds 12 blocks, so the oldest were
      // evicted.
      assertThat(stored).hasSize(15);
      assertThat(removed).isNotEmpty().allSatisfy(h -> assertThat(stored).contains(h));
      Set<Long> live = new HashSet<>(stored);
      live.removeAll(removed);
      Set<Long> cacheView = new HashSet<>();
      for (PrefixCache.CachedBlock b : worker.cache().snapshot()) {
        cacheView.add(b.id().eventHash());
      }
      assertThat(cacheView).isEqualTo(live);
      assertThat(received.stream().map(Batch::seq).toList())
          .containsExactlyElementsOf(
              java.util.stream.LongStream.range(0, received.size()).boxed().toList());

      // Drop every batch: the subscriber sees nothing, replay returns the missed ones.
      worker.faults().dropEventFraction(1.0);
      long nextSeq = received.getLast().seq() + 1;
      completion(worker, 100, 48);
      completion(worker, 101, 48);
      worker.flushEvents();
      sub.setReceiveTimeOut(300);
      assertThat(sub.recv()).isNull();

      // The replay client gets its own context, as a router's replay client would (sharing the
      // busy SUB's context made the first request go unanswered now and then on this box).
      ZContext replayCtx = new ZContext();
      ZMQ.Socket dealer = replayCtx.createSocket(SocketType.DEALER);
      dealer.setReceiveTimeOut(1000);
      dealer.connect(worker.replayEndpoint());
      byte[] empty = null;
      for (int attempt = 0; attempt < 15 && empty == null; attempt++) {
        // A request sent while the TCP connection is still being set up can be lost; retry.
        dealer.sendMore(new byte[0]);
        dealer.send(ByteBuffer.allocate(8).putLong(nextSeq).array());
        empty = dealer.recv();
      }
      List<Long> replayed = new ArrayList<>();
      while (true) {
        if (empty == null) {
          empty = dealer.recv();
        }
        assertThat(empty)
            .as(
                "replay reply from %s (requests served: %d)",
                worker.replayEndpoint(), worker.publisher().replayRequests())
            .isNotNull()
            .isEmpty();
        empty = null;
        long seq = ByteBuffer.wrap(dealer.recv()).getLong();
        byte[] payload = dealer.recv();
        if (seq == -1) {
          assertThat(payload).isEmpty();
          break;
        }
        replayed.add(seq);
        assertThat(unpackBatch(payload)).isNotEmpty();
      }
      assertThat(replayed).containsExactly(nextSeq, nextSeq + 1);
      replayCtx.close();

      // AllBlocksCleared on a cache reset (after re-enabling delivery).
      worker.faults().clear();
      worker.clearCache();
      worker.flushEvents();
      sub.setReceiveTimeOut(5000);
      List<Batch> after = new ArrayList<>();
      drain(sub, after, 1);
      assertThat(decode(after.getFirst().events().getFirst()).type()).isEqualTo("AllBlocksCleared");
      assertThat(after.getFirst().seq()).isEqualTo(nextSeq + 2);
    }
  }

  private static void completion(SimulatedWorker worker, int salt, int length) throws Exception {
    var body = Json.MAPPER.createObjectNode().put("model", "m").put("max_tokens", 1);
    var ids = body.putArray("prompt");
    for (int i = 0; i < length; i++) {
      ids.add(1000 * salt + i + 1);
    }
    assertThat(SimClient.post(worker.baseUrl() + "/v1/completions", body).status()).isEqualTo(200);
  }

  private static void drain(ZMQ.Socket sub, List<Batch> out, int atLeast) throws Exception {
    while (out.size() < atLeast) {
      byte[] topic = sub.recv();
      assertThat(topic).as("timed out waiting for events").isNotNull();
      assertThat(new String(topic)).isEqualTo("kv@sim@m");
      byte[] seq = sub.recv();
      assertThat(seq).hasSize(8);
      byte[] payload = sub.recv();
      assertThat(sub.hasReceiveMore()).isFalse();
      out.add(new Batch(ByteBuffer.wrap(seq).getLong(), unpackBatch(payload)));
    }
    // Pick up anything else already sent.
    sub.setReceiveTimeOut(200);
    byte[] topic;
    while ((topic = sub.recv()) != null) {
      byte[] seq = sub.recv();
      out.add(new Batch(ByteBuffer.wrap(seq).getLong(), unpackBatch(sub.recv())));
    }
    sub.setReceiveTimeOut(5000);
  }

  private static List<Value> unpackBatch(byte[] payload) throws Exception {
    try (MessageUnpacker u = MessagePack.newDefaultUnpacker(payload)) {
      ArrayValue batch = u.unpackValue().asArrayValue();
      assertThat(batch.size()).isEqualTo(3);
      assertThat(batch.get(0).isFloatValue()).isTrue();
      assertThat(batch.get(2).asIntegerValue().toInt()).isZero();
      return batch.get(1).asArrayValue().list();
    }
  }

  record Decoded(String type, List<Long> hashes, int blockSize, int tokenCount) {}

  /** Reads either encoding; hashes as unsigned 64-bit values folded into a long. */
  private static Decoded decode(Value event) {
    if (event.isArrayValue()) {
      List<Value> f = event.asArrayValue().list();
      String type = f.get(0).asStringValue().asString();
      return switch (type) {
        case "BlockStored" ->
            new Decoded(
                type,
                hashes(f.get(1)),
                f.get(4).asIntegerValue().toInt(),
                f.get(3).asArrayValue().size());
        case "BlockRemoved" -> new Decoded(type, hashes(f.get(1)), 0, 0);
        default -> new Decoded(type, List.of(), 0, 0);
      };
    }
    MapValue m = event.asMapValue();
    var map = m.map();
    String type = map.get(ValueFactory.newString("type")).asStringValue().asString();
    Value hashes = map.get(ValueFactory.newString("block_hashes"));
    Value tokens = map.get(ValueFactory.newString("token_ids"));
    Value bs = map.get(ValueFactory.newString("block_size"));
    return new Decoded(
        type,
        hashes == null ? List.of() : hashes(hashes),
        bs == null ? 0 : bs.asIntegerValue().toInt(),
        tokens == null ? 0 : tokens.asArrayValue().size());
  }

  private static List<Long> hashes(Value v) {
    List<Long> out = new ArrayList<>();
    for (Value h : v.asArrayValue()) {
      BigInteger b = h.asIntegerValue().asBigInteger();
      assertThat(b.signum()).isNotNegative();
      out.add(b.longValue());
    }
    return out;
  }
}
