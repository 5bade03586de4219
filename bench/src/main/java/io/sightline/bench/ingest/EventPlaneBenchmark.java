package io.sightline.bench.ingest;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.sightline.router.ingest.EventPlaneException;
import io.sightline.router.ingest.InProcessKvEventBus;
import io.sightline.router.ingest.IngestMetrics;
import io.sightline.router.ingest.KvEventBus;
import io.sightline.router.ingest.NatsKvEventBus;
import io.sightline.router.ingest.VllmBridge;
import io.sightline.routing.event.KvEvent;
import io.sightline.routing.index.KvIndex;
import io.sightline.routing.index.StoredBlockConverter;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * KV events applied per second, end to end: a vLLM-style ZMQ PUB (msgpack batches, as the engine
 * sends them) → {@link VllmBridge} (ZMQ SUB, decode, normalise, plane sequencing) → event plane
 * ({@code plane=nats}: JetStream publish with ack, ordered push consumer; {@code plane=embedded}:
 * in-process bus) → codec → {@link KvIndex#apply}. Each message is one batch with a {@code
 * BlockStored} of {@value #BLOCKS} chained 16-token blocks and a {@code BlockRemoved} of the blocks
 * stored {@value #WINDOW} batches earlier, so the index stays at a steady size. One invocation
 * publishes {@value #BATCHES} batches and waits until the index has applied all of their events;
 * the score is in batches/s (× 2 = events/s, × {@value #BLOCKS}·2 = block operations/s).
 *
 * <p>Needs a NATS server with JetStream for {@code plane=nats} ({@code NATS_URL}, default {@code
 * nats://127.0.0.1:4222}). Run from the module class path (router-service is {@code provided}), see
 * docs/benchmarks.md "Event ingestion".
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx1g"})
@State(Scope.Benchmark)
public class EventPlaneBenchmark {
  static final int BLOCKS = 4;
  static final int BLOCK_SIZE = 16;
  static final int WINDOW = 64;
  static final int BATCHES = 200;
  static final int CYCLE = 8192;

  @Param({"nats", "embedded"})
  public String plane;

  private ZContext zmq;
  private ZMQ.Socket pub;
  private Connection nats;
  private NatsKvEventBus natsBus;
  private KvEventBus bus;
  private VllmBridge bridge;
  private AutoCloseable subscription;
  private KvIndex index;
  private byte[][] payloads;
  private final AtomicLong applied = new AtomicLong();
  private long seq;
  private long expected;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    payloads = new byte[CYCLE][];
    for (int i = 0; i < CYCLE; i++) {
      payloads[i] = batch(i);
    }
    index = new KvIndex(StoredBlockConverter.textOnly(BLOCK_SIZE));
    if (plane.equals("nats")) {
      String url = System.getenv().getOrDefault("NATS_URL", "nats://127.0.0.1:4222");
      nats =
          Nats.connect(
              new io.nats.client.Options.Builder()
                  .server(url)
                  .errorListener(new io.sightline.router.ingest.NatsErrorListener())
                  .build());
      String id = UUID.randomUUID().toString().replace("-", "");
      natsBus =
          new NatsKvEventBus(
              nats,
              new NatsKvEventBus.Settings(
                  "BENCH_" + id, "bench." + id, Duration.ofMinutes(10), 512L << 20, true));
      bus = natsBus;
    } else {
      bus = new InProcessKvEventBus();
    }
    subscription =
        bus.subscribe(
            0,
            (message, streamSeq) -> {
              for (KvEvent e : message.events()) {
                index.apply(e);
              }
              applied.addAndGet(message.events().size());
            });
    zmq = new ZContext(1);
    pub = zmq.createSocket(SocketType.PUB);
    pub.setSndHWM(1_000_000);
    int port = pub.bindToRandomPort("tcp://127.0.0.1");
    bridge =
        new VllmBridge(
            "bench-worker",
            "tcp://127.0.0.1:" + port,
            null,
            "",
            1,
            Duration.ofSeconds(1),
            bus,
            IngestMetrics.standalone(),
            zmq);
    bridge.start();
    // ZMQ slow joiner: publish until the bridge's SUB is connected and events arrive.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (applied.get() == 0) {
      send();
      Thread.sleep(20);
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("bridge never received a batch");
      }
    }
    Thread.sleep(200);
    expected = applied.get();
  }

  private void send() {
    byte[] payload = payloads[(int) (seq % CYCLE)];
    ZMsg m = new ZMsg();
    m.add("kv".getBytes());
    m.add(seqFrame(seq));
    m.add(payload);
    m.send(pub);
    seq++;
  }

  private static byte[] seqFrame(long s) {
    byte[] out = new byte[8];
    for (int i = 7; i >= 0; i--) {
      out[i] = (byte) s;
      s >>>= 8;
    }
    return out;
  }

  /** Batch i: store blocks 4i..4i+3 (chained) and remove those of batch i-WINDOW. */
  private static byte[] batch(int i) throws IOException {
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    p.packArrayHeader(3).packDouble(i).packArrayHeader(2);
    p.packArrayHeader(7).packString("BlockStored").packArrayHeader(BLOCKS);
    for (int b = 0; b < BLOCKS; b++) {
      p.packLong(hash(i, b));
    }
    if (i == 0) {
      p.packNil();
    } else {
      p.packLong(hash(i - 1, BLOCKS - 1));
    }
    p.packArrayHeader(BLOCKS * BLOCK_SIZE);
    for (int t = 0; t < BLOCKS * BLOCK_SIZE; t++) {
      p.packInt(1000 + (i * 7 + t) % 30000);
    }
    p.packInt(BLOCK_SIZE).packNil().packString("GPU");
    int old = Math.floorMod(i - WINDOW, CYCLE);
    p.packArrayHeader(3).packString("BlockRemoved").packArrayHeader(BLOCKS);
    for (int b = 0; b < BLOCKS; b++) {
      p.packLong(hash(old, b));
    }
    p.packString("GPU");
    p.packInt(0);
    return p.toByteArray();
  }

  private static long hash(int batch, int block) {
    return 0x9E3779B97F4A7C15L * (batch * (long) BLOCKS + block + 1);
  }

  @Benchmark
  @OperationsPerInvocation(BATCHES)
  public long endToEnd() {
    for (int i = 0; i < BATCHES; i++) {
      send();
    }
    expected += 2L * BATCHES;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (applied.get() < expected) {
      LockSupport.parkNanos(20_000);
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "events lost: applied " + applied.get() + " of " + expected);
      }
    }
    return applied.get();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    bridge.close();
    subscription.close();
    if (natsBus != null) {
      try {
        natsBus.deleteStream();
      } catch (EventPlaneException e) {
        // best effort
      }
      nats.close();
    }
    zmq.close();
  }
}
