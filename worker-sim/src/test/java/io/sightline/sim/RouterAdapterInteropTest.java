package io.sightline.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.adapter.vllm.VllmEventBatch;
import io.sightline.adapter.vllm.VllmEventDecoder;
import io.sightline.adapter.vllm.VllmEventNormalizer;
import io.sightline.routing.event.KvEvent;
import io.sightline.routing.multimodal.MmHashes;
import io.sightline.sim.cache.PrefixCache;
import io.sightline.sim.engine.TimingModel;
import io.sightline.sim.events.VllmEventEncoder;
import java.awt.Color;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The router's own vLLM adapter (worker-adapters/vllm) decodes the simulator's events: block hashes
 * equal the worker's cache, and an image sent with Sightline's forwardable uuid comes back as the
 * same mm_hash on exactly the blocks the image covers.
 */
class RouterAdapterInteropTest {

  @ParameterizedTest
  @EnumSource(VllmEventEncoder.Format.class)
  void adapterDecodesSimEvents(VllmEventEncoder.Format format) throws Exception {
    long mmHash = 0x0123456789abcdefL;
    SimOptions options =
        SimOptions.defaults()
            .withServedModelName("m")
            .withEventFormat(format)
            .withTiming(TimingModel.DEFAULT.withSpeedup(Double.POSITIVE_INFINITY));
    try (SimulatedWorker worker = SimulatedWorker.start(options);
        ZContext ctx = new ZContext()) {
      ZMQ.Socket sub = ctx.createSocket(SocketType.SUB);
      sub.connect(worker.eventEndpoint());
      sub.subscribe(new byte[0]);
      sub.setReceiveTimeOut(5000);
      ZmqTestSupport.awaitSubscription(worker, sub);

      ObjectNode body =
          SimClient.chat("m", "Describe it.", 1, TestImages.pngDataUri(320, 320, Color.CYAN));
      ((ObjectNode) body.at("/messages/0/content/0")).put("uuid", MmHashes.forwardable(mmHash));
      assertThat(SimClient.post(worker.baseUrl() + "/v1/chat/completions", body).status())
          .isEqualTo(200);
      worker.flushEvents();

      sub.recv(); // topic
      long seq = ByteBuffer.wrap(sub.recv()).getLong();
      VllmEventBatch batch = new VllmEventDecoder().decodeBatch(sub.recv());
      VllmEventNormalizer.Result result = new VllmEventNormalizer("w", 0).normalize(batch, seq);
      assertThat(result.rejections()).isEmpty();
      KvEvent.Stored stored = (KvEvent.Stored) result.events().getFirst();

      Set<Long> cacheView = new HashSet<>();
      for (PrefixCache.CachedBlock b : worker.cache().snapshot()) {
        cacheView.add(b.id().eventHash());
      }
      Set<Long> decoded = new HashSet<>();
      for (long h : stored.blockHashes()) {
        decoded.add(h);
      }
      assertThat(decoded).isEqualTo(cacheView);
      assertThat(stored.blockSize()).isEqualTo(16);
      assertThat(stored.parentHash()).isNull();

      List<Integer> imageBlocks = new ArrayList<>();
      for (int i = 0; i < stored.blockHashes().length; i++) {
        long[] mm = stored.mmHashesOfBlock(i);
        if (mm != null && mm.length > 0) {
          assertThat(mm).containsExactly(mmHash);
          imageBlocks.add(i);
        }
      }
      // Exactly the blocks whose engine extra_keys carry the image (100 tokens at 1024 px/token).
      long expected =
          worker.cache().snapshot().stream()
              .filter(
                  b ->
                      b.spec().extraKeys().stream()
                          .anyMatch(k -> k instanceof io.sightline.sim.hash.ExtraKey.Mm))
              .count();
      assertThat(imageBlocks).hasSize((int) expected);
      assertThat(expected).isGreaterThanOrEqualTo(6);
    }
  }
}
