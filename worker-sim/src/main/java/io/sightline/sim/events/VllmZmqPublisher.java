package io.sightline.sim.events;

import io.sightline.sim.cache.CacheEvent;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * vLLM's ZMQ KV-event publisher ({@code ZmqEventPublisher}; {@code ../shared/reference/llmd.md}
 * §1): a PUB socket sending three frames per batch — topic, 8-byte big-endian sequence number (from
 * 0 per publisher lifetime, +1 per batch), msgpack payload — and an optional ROUTER replay socket.
 * A replay request is {@code [identity, "", start_seq (8 B BE)]}; the answer is one {@code
 * [identity, "", seq, payload]} per buffered batch with {@code seq >= start}, then the end marker
 * {@code seq = -1} with an empty payload.
 *
 * <p>One daemon thread owns both sockets (ZMQ sockets are not thread-safe); {@link #publish}
 * enqueues. Fault injection: {@link #setDropFraction} skips sending a fraction of batches while
 * still numbering and buffering them, so subscribers see sequence gaps that replay can fill; {@link
 * #restart} resets the sequence and the replay buffer, as a restarted engine does.
 */
public final class VllmZmqPublisher implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(VllmZmqPublisher.class.getName());
  private static final byte[] END_MARKER = longBytes(-1L);

  private record Item(List<CacheEvent> events, boolean restart) {}

  private record Buffered(long seq, byte[] payload) {}

  private final ZContext context;
  private final byte[] topic;
  private final VllmEventEncoder encoder;
  private final int dpRank;
  private final int bufferSteps;
  private final LinkedBlockingQueue<Item> queue = new LinkedBlockingQueue<>();
  private final ArrayDeque<Buffered> buffer = new ArrayDeque<>();
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong enqueued = new AtomicLong();
  private final AtomicLong handled = new AtomicLong();
  private final AtomicLong replayRequests = new AtomicLong();
  private final Thread thread;
  private final int pubPort;
  private final int replayPort;
  private volatile java.util.function.DoubleSupplier dropFraction = () -> 0.0;
  private volatile boolean running = true;
  private long nextSeq;

  /**
   * Binds the sockets.
   *
   * @param host interface to bind ({@code *} for all)
   * @param pubPort PUB port, 0 for a random free port
   * @param replayPort ROUTER replay port, 0 for random, negative for no replay socket
   * @param topic topic frame (vLLM default "")
   * @param format inner event encoding
   * @param blockSize tokens per block (the {@code block_size} field)
   * @param dpRank data-parallel rank written into every batch
   * @param bufferSteps batches kept for replay (vLLM {@code buffer_steps}, default 10000)
   */
  public VllmZmqPublisher(
      String host,
      int pubPort,
      int replayPort,
      String topic,
      VllmEventEncoder.Format format,
      int blockSize,
      int dpRank,
      int bufferSteps) {
    this.context = new ZContext();
    this.topic = (topic == null ? "" : topic).getBytes(StandardCharsets.UTF_8);
    this.encoder = new VllmEventEncoder(format, blockSize);
    this.dpRank = dpRank;
    this.bufferSteps = bufferSteps;
    // The sockets are created, bound and used by the one thread that owns them (the ZMQ rule);
    // the constructor waits for the bound ports.
    java.util.concurrent.CompletableFuture<int[]> bound =
        new java.util.concurrent.CompletableFuture<>();
    thread =
        Thread.ofPlatform()
            .daemon()
            .name("sim-zmq")
            .start(
                () -> {
                  ZMQ.Socket p = null;
                  ZMQ.Socket r = null;
                  try {
                    p = context.createSocket(SocketType.PUB);
                    p.setSndHWM(100_000);
                    p.setLinger(0);
                    int pp = bind(p, host, pubPort);
                    int rp = -1;
                    if (replayPort >= 0) {
                      r = context.createSocket(SocketType.ROUTER);
                      r.setLinger(0);
                      rp = bind(r, host, replayPort);
                    }
                    bound.complete(new int[] {pp, rp});
                  } catch (RuntimeException e) {
                    bound.completeExceptionally(e);
                    return;
                  }
                  loop(p, r);
                });
    try {
      int[] ports = bound.get(10, TimeUnit.SECONDS);
      this.pubPort = ports[0];
      this.replayPort = ports[1];
    } catch (java.util.concurrent.ExecutionException e) {
      context.close();
      throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e);
    } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
      context.close();
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("ZMQ sockets not bound", e);
    }
  }

  private static int bind(ZMQ.Socket socket, String host, int port) {
    String h = host == null || host.isBlank() ? "*" : host;
    if (port == 0) {
      // Let the OS pick a free ephemeral port (ZMQ's "*" port) instead of JeroMQ's
      // bindToRandomPort, which guesses ports and can land on one the OS is handing out.
      socket.bind("tcp://" + h + ":*");
      String last = socket.getLastEndpoint();
      return Integer.parseInt(last.substring(last.lastIndexOf(':') + 1));
    }
    socket.bind("tcp://" + h + ":" + port);
    return port;
  }

  public int pubPort() {
    return pubPort;
  }

  /** The replay port, or -1 when replay is off. */
  public int replayPort() {
    return replayPort;
  }

  /** Queues one batch (one scheduler step's changes). */
  public void publish(List<CacheEvent> events) {
    if (!events.isEmpty()) {
      enqueued.incrementAndGet();
      queue.add(new Item(events, false));
    }
  }

  /** Resets the sequence to 0 and empties the replay buffer (an engine restart). */
  public void restart() {
    enqueued.incrementAndGet();
    queue.add(new Item(List.of(), true));
  }

  /** Fraction of batches to number and buffer but not send (0 = none). */
  public void setDropFraction(double fraction) {
    double f = Math.clamp(fraction, 0.0, 1.0);
    this.dropFraction = () -> f;
  }

  /** Reads the drop fraction from {@code source} for every batch (live fault settings). */
  public void setDropFraction(java.util.function.DoubleSupplier source) {
    this.dropFraction = source;
  }

  /** Batches sent on the PUB socket so far. */
  public long publishedBatches() {
    return published.get();
  }

  /** Replay requests served so far. */
  public long replayRequests() {
    return replayRequests.get();
  }

  /** Batches withheld by fault injection so far. */
  public long droppedBatches() {
    return dropped.get();
  }

  /** True once every queued batch has been handled by the socket thread. */
  public boolean idle() {
    return handled.get() == enqueued.get();
  }

  private void loop(ZMQ.Socket pub, ZMQ.Socket replay) {
    while (running) {
      try {
        Item item = queue.poll(2, TimeUnit.MILLISECONDS);
        while (item != null) {
          try {
            handle(pub, item);
          } finally {
            handled.incrementAndGet();
          }
          item = queue.poll();
        }
        serveReplay(replay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        if (running) {
          LOG.log(Level.WARNING, "KV event publisher error", e);
        }
      }
    }
  }

  private void handle(ZMQ.Socket pub, Item item) {
    if (item.restart()) {
      nextSeq = 0;
      buffer.clear();
      return;
    }
    long seq = nextSeq++;
    byte[] payload =
        encoder.encodeBatch(System.currentTimeMillis() / 1000.0, item.events(), dpRank);
    buffer.addLast(new Buffered(seq, payload));
    while (buffer.size() > bufferSteps) {
      buffer.removeFirst();
    }
    double drop = dropFraction.getAsDouble();
    if (drop > 0 && ThreadLocalRandom.current().nextDouble() < drop) {
      dropped.incrementAndGet();
      return;
    }
    pub.sendMore(topic);
    pub.sendMore(longBytes(seq));
    pub.send(payload);
    published.incrementAndGet();
  }

  private void serveReplay(ZMQ.Socket replay) {
    if (replay == null) {
      return;
    }
    while (true) {
      byte[] identity = replay.recv(ZMQ.DONTWAIT);
      if (identity == null) {
        return;
      }
      byte[] last = identity;
      java.util.List<byte[]> frames = new java.util.ArrayList<>();
      while (replay.hasReceiveMore()) {
        last = replay.recv(0);
        frames.add(last);
      }
      if (frames.isEmpty() || last.length != 8) {
        LOG.fine("ignoring malformed replay request");
        continue;
      }
      long start = ByteBuffer.wrap(last).getLong();
      replayRequests.incrementAndGet();
      for (Buffered b : buffer) {
        if (b.seq() >= start) {
          replay.sendMore(identity);
          replay.sendMore(new byte[0]);
          replay.sendMore(longBytes(b.seq()));
          replay.send(b.payload());
        }
      }
      replay.sendMore(identity);
      replay.sendMore(new byte[0]);
      replay.sendMore(END_MARKER);
      replay.send(new byte[0]);
    }
  }

  static byte[] longBytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    context.close();
  }
}
