package io.sightline.router.ingest;

import io.sightline.adapter.vllm.EventDecodeException;
import io.sightline.adapter.vllm.VllmEventBatch;
import io.sightline.adapter.vllm.VllmEventNormalizer;
import io.sightline.adapter.vllm.VllmEventStream;
import io.sightline.routing.event.KvEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.zeromq.ZContext;

/**
 * Bridges a vLLM worker: one {@link VllmEventStream} (ZMQ SUB + replay) per data-parallel rank,
 * each rank's PUB/replay port offset by the rank as vLLM does ({@code
 * ZmqEventPublisher.offset_endpoint_port}). Batches are normalised, stamped with plane sequences
 * and published; a resync (a hole replay could not close, an undecodable batch, an engine restart)
 * publishes a {@link KvEvent.Cleared} first so every replica drops the rank's entries before the
 * rebuild that follows. On start each rank resumes after the newest message on the plane: its
 * source sequence tells the stream where to ask the replay socket to continue.
 */
public final class VllmBridge implements WorkerBridge {

  private final String workerId;
  private final String endpoint;
  private final String replayEndpoint;
  private final String topic;
  private final int ranks;
  private final Duration replayTimeout;
  private final KvEventBus bus;
  private final IngestMetrics metrics;
  private final ZContext context;
  private final PlanePublisher publisher;
  private final List<VllmEventStream> streams = new ArrayList<>();
  private volatile boolean running;

  public VllmBridge(
      String workerId,
      String endpoint,
      String replayEndpoint,
      String topic,
      int dataParallelSize,
      Duration replayTimeout,
      KvEventBus bus,
      IngestMetrics metrics,
      ZContext context) {
    this.workerId = workerId;
    this.endpoint = endpoint;
    this.replayEndpoint =
        replayEndpoint == null || replayEndpoint.isBlank() ? null : replayEndpoint;
    this.topic = topic == null ? "" : topic;
    this.ranks = Math.max(1, dataParallelSize);
    this.replayTimeout = replayTimeout;
    this.bus = bus;
    this.metrics = metrics;
    this.context = context;
    this.publisher = new PlanePublisher(bus, metrics, "vllm");
  }

  @Override
  public String workerId() {
    return workerId;
  }

  @Override
  public String sourceKey() {
    return "zmq|" + endpoint + "|" + replayEndpoint + "|" + topic + "|" + ranks;
  }

  @Override
  public synchronized void start() throws EventPlaneException {
    running = true;
    for (int rank = 0; rank < ranks; rank++) {
      Optional<EventBatchMessage> last = bus.last(workerId, rank);
      long resumeAfter = last.map(EventBatchMessage::sourceSequence).orElse(-1L);
      PlaneSequencer sequencer =
          new PlaneSequencer(last.map(EventBatchMessage::lastEventSequence).orElse(-1L));
      VllmEventStream.Config config =
          new VllmEventStream.Config(
              offsetEndpoint(endpoint, rank),
              replayEndpoint == null ? null : offsetEndpoint(replayEndpoint, rank),
              topic,
              replayTimeout,
              resumeAfter);
      VllmEventStream stream =
          new VllmEventStream(
              config, new RankListener(rank, sequencer, Math.max(resumeAfter, -1)), context);
      streams.add(stream);
      stream.start();
    }
  }

  @Override
  public synchronized void close() {
    running = false;
    for (VllmEventStream s : streams) {
      s.close();
    }
    streams.clear();
  }

  /** vLLM's per-rank endpoint: TCP port + rank, or an {@code _dp<rank>} suffix for inproc/ipc. */
  static String offsetEndpoint(String endpoint, int rank) {
    if (rank == 0) {
      return endpoint;
    }
    if (endpoint.startsWith("inproc://") || endpoint.startsWith("ipc://")) {
      return endpoint + "_dp" + rank;
    }
    int colon = endpoint.lastIndexOf(':');
    if (colon < 0) {
      return endpoint;
    }
    try {
      int port = Integer.parseInt(endpoint.substring(colon + 1));
      return endpoint.substring(0, colon + 1) + (port + rank);
    } catch (NumberFormatException e) {
      return endpoint;
    }
  }

  private final class RankListener implements VllmEventStream.Listener {
    private final int rank;
    private final PlaneSequencer sequencer;
    private final VllmEventNormalizer normalizer;
    private long lastSource;

    RankListener(int rank, PlaneSequencer sequencer, long lastSource) {
      this.rank = rank;
      this.sequencer = sequencer;
      this.normalizer = new VllmEventNormalizer(workerId, rank);
      this.lastSource = lastSource;
    }

    @Override
    public void onBatch(long sequence, VllmEventBatch batch, boolean replayed) {
      VllmEventNormalizer.Result r = normalizer.normalize(batch, sequence);
      metrics.adapterRejected("vllm", r.rejections().size());
      lastSource = sequence;
      // Force the configured rank: one stream per rank endpoint.
      List<KvEvent> events = new ArrayList<>(r.events().size());
      for (KvEvent e : r.events()) {
        events.add(e.dpRank() == rank ? e : onRank(e));
      }
      // Publish even an empty batch: it advances the source position for a hand-over.
      publisher.publish(
          new EventBatchMessage(workerId, rank, sequence, sequencer.stamp(events)), () -> running);
    }

    @Override
    public void onResync(String reason) {
      metrics.resync("vllm");
      publisher.publish(
          new EventBatchMessage(
              workerId,
              rank,
              lastSource,
              sequencer.stamp(List.of(new KvEvent.Cleared(workerId, rank, -1)))),
          () -> running);
    }

    @Override
    public void onGap(long expected, long received, boolean closed) {
      metrics.gap("vllm", closed);
      if (replayEndpoint != null) {
        metrics.replay(closed);
      }
    }

    @Override
    public void onReconnect() {
      metrics.reconnect("vllm");
    }

    @Override
    public void onDecodeError(long sequence, EventDecodeException error) {
      metrics.adapterRejected("vllm", 1);
    }

    private KvEvent onRank(KvEvent e) {
      return switch (e) {
        case KvEvent.Stored s ->
            new KvEvent.Stored(
                workerId,
                rank,
                s.sequence(),
                s.tier(),
                s.blockHashes(),
                s.parentHash(),
                s.tokenIds(),
                s.blockSize(),
                s.blockMmHashes(),
                s.loraName(),
                s.cacheSalt());
        case KvEvent.Removed rm ->
            new KvEvent.Removed(workerId, rank, rm.sequence(), rm.tier(), rm.blockHashes());
        case KvEvent.Cleared c -> new KvEvent.Cleared(workerId, rank, c.sequence());
      };
    }
  }
}
