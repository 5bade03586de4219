package io.sightline.adapter.vllm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * One vLLM publisher's KV-event stream, in order and without holes: a ZMQ SUB on the publisher's
 * PUB endpoint, per-publisher sequence tracking, and the replay socket to fill gaps.
 *
 * <p>Rules ({@code ../shared/reference/llmd.md} §1, §3; {@code dynamo.md} §3 "Replica
 * consistency"):
 *
 * <ul>
 *   <li>Batches are delivered to the {@link Listener} strictly in sequence order, each once.
 *   <li>At start (no known position) the stream asks the replay socket for everything from 0, so a
 *       late subscriber also sees what was published before it connected (ZMQ "slow joiner"). With
 *       a known position ({@link Config#resumeAfter()}) it asks from the next one.
 *   <li>A hole (received {@code seq > expected}) is filled from the replay socket. If the replay
 *       socket is absent, times out, or no longer buffers the missing batches, the listener gets
 *       {@link Listener#onResync} — the consumer must drop this endpoint's entries — followed by
 *       every batch the publisher still buffers (a best-effort rebuild), and the stream continues
 *       live. A batch that cannot be decoded counts as such a hole.
 *   <li>After the SUB socket <em>re</em>connects (ZMQ socket monitor), the replay socket is asked
 *       for everything after the last delivered batch right away, so batches lost while
 *       disconnected are recovered even if the publisher stays idle.
 *   <li>A sequence that goes backwards to 0 (or a changed 16-byte publisher id in the widened
 *       sequence frame) is a restarted engine, whose cache starts empty: resync, then continue.
 *       Anything else below the expected sequence is a duplicate and is dropped.
 * </ul>
 *
 * The stream runs one daemon thread that owns both sockets (ZMQ sockets are not thread-safe);
 * listener callbacks run on it and must not block for long.
 */
public final class VllmEventStream implements AutoCloseable {

  private static final Logger LOG = Logger.getLogger(VllmEventStream.class.getName());
  private static final int REPLAY_ATTEMPTS = 2;
  private static final AtomicLong MONITORS = new AtomicLong();

  /** Receives the stream's batches and state changes. */
  public interface Listener {
    /** The next batch in order. {@code replayed} says it came from the replay socket. */
    void onBatch(long sequence, VllmEventBatch batch, boolean replayed);

    /** Everything known about this publisher is stale: clear it before the next batch. */
    void onResync(String reason);

    /** A hole was detected; {@code closed} says whether replay filled it. */
    default void onGap(long expected, long received, boolean closed) {}

    /** The SUB socket reconnected to the publisher (a catch-up via replay follows). */
    default void onReconnect() {}

    /** A batch failed to decode (it is then handled as an unfillable hole). */
    default void onDecodeError(long sequence, EventDecodeException error) {}
  }

  /**
   * Stream configuration.
   *
   * @param endpoint the publisher's PUB endpoint, e.g. {@code tcp://10.0.0.5:5557}
   * @param replayEndpoint the publisher's ROUTER replay endpoint, or {@code null} if it has none
   * @param topicPrefix subscription prefix ({@code ""} for all topics)
   * @param replayTimeout how long one replay receive may wait
   * @param resumeAfter the last sequence already applied from this publisher, or -1 for none
   */
  public record Config(
      String endpoint,
      String replayEndpoint,
      String topicPrefix,
      Duration replayTimeout,
      long resumeAfter) {
    public Config {
      Objects.requireNonNull(endpoint, "endpoint");
      topicPrefix = topicPrefix == null ? "" : topicPrefix;
      replayTimeout = replayTimeout == null ? Duration.ofSeconds(2) : replayTimeout;
    }

    public static Config of(String endpoint, String replayEndpoint) {
      return new Config(endpoint, replayEndpoint, "", Duration.ofSeconds(2), -1);
    }
  }

  private final Config config;
  private final Listener listener;
  private final ZContext context;
  private final boolean ownsContext;
  private final VllmEventDecoder decoder = new VllmEventDecoder();
  private final AtomicLong lastDelivered = new AtomicLong(-1);
  private volatile boolean running;
  private Thread thread;

  // Owned by the stream thread.
  private long expected = -1;
  private byte[] publisherId;
  private VllmReplayClient replay;

  public VllmEventStream(Config config, Listener listener) {
    this(config, listener, null);
  }

  /** With a shared {@link ZContext} (not closed by this stream); null creates a private one. */
  public VllmEventStream(Config config, Listener listener, ZContext sharedContext) {
    this.config = Objects.requireNonNull(config, "config");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.ownsContext = sharedContext == null;
    this.context = sharedContext == null ? new ZContext(1) : sharedContext;
    if (config.resumeAfter() >= 0) {
      this.expected = config.resumeAfter() + 1;
      this.lastDelivered.set(config.resumeAfter());
    }
  }

  public Config config() {
    return config;
  }

  /** The last sequence handed to the listener, or -1. */
  public long lastSequence() {
    return lastDelivered.get();
  }

  /** Starts the stream thread. */
  public synchronized void start() {
    if (thread != null) {
      throw new IllegalStateException("already started");
    }
    running = true;
    thread = new Thread(this::run, "vllm-kv-events-" + config.endpoint());
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public synchronized void close() {
    running = false;
    if (thread != null) {
      try {
        thread.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (ownsContext) {
      context.close();
    }
  }

  private void run() {
    ZMQ.Socket sub = context.createSocket(SocketType.SUB);
    ZMQ.Socket monitor = null;
    ZMQ.Poller poller = null;
    try {
      sub.setLinger(0);
      sub.setRcvHWM(100_000);
      sub.setReconnectIVL(200);
      sub.setReconnectIVLMax(5000);
      sub.subscribe(config.topicPrefix().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      // Watch (re)connections: after one, ask the replay socket for what we missed even if the
      // publisher stays idle (a sequence gap would only show with its next batch).
      String monitorAddress = "inproc://vllm-kv-monitor-" + MONITORS.incrementAndGet();
      sub.monitor(monitorAddress, ZMQ.EVENT_CONNECTED);
      monitor = context.createSocket(SocketType.PAIR);
      monitor.setLinger(0);
      monitor.connect(monitorAddress);
      sub.connect(config.endpoint());
      if (config.replayEndpoint() != null && !config.replayEndpoint().isEmpty()) {
        replay = new VllmReplayClient(context, config.replayEndpoint(), config.replayTimeout());
      }
      if (expected < 0 && replay != null) {
        expected = 0; // catch up on history published before we connected
      }
      poller = context.createPoller(2);
      int subIndex = poller.register(sub, ZMQ.Poller.POLLIN);
      int monitorIndex = poller.register(monitor, ZMQ.Poller.POLLIN);
      boolean caughtUp = expected < 0 || replay == null;
      int connects = 0;
      while (running && !Thread.currentThread().isInterrupted()) {
        if (!caughtUp) {
          // Ask for anything buffered since our position; live messages queue in the SUB socket
          // meanwhile and duplicates are dropped by sequence.
          caughtUp = true;
          catchUp();
        }
        if (poller.poll(100) <= 0) {
          continue;
        }
        if (poller.pollin(monitorIndex)) {
          ZMQ.Event event;
          while ((event = ZMQ.Event.recv(monitor, ZMQ.DONTWAIT)) != null) {
            if (event.getEvent() == ZMQ.EVENT_CONNECTED && ++connects > 1) {
              listener.onReconnect();
              caughtUp = replay == null || expected < 0;
            }
          }
        }
        if (!poller.pollin(subIndex)) {
          continue;
        }
        ZMsg msg;
        while (running && (msg = ZMsg.recvMsg(sub, ZMQ.DONTWAIT)) != null) {
          List<byte[]> frames = new ArrayList<>(3);
          msg.forEach(f -> frames.add(f.getData()));
          msg.destroy();
          try {
            handle(VllmKvMessage.fromFrames(frames));
          } catch (EventDecodeException e) {
            LOG.log(
                Level.WARNING,
                "vLLM KV event message from {0} dropped: {1}",
                new Object[] {config.endpoint(), e.getMessage()});
            listener.onDecodeError(-1, e);
          } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "KV event listener failed for " + config.endpoint(), e);
          }
        }
      }
    } catch (RuntimeException e) {
      if (running) {
        LOG.log(Level.SEVERE, "vLLM KV event stream " + config.endpoint() + " stopped", e);
      }
    } finally {
      if (replay != null) {
        replay.close();
      }
      if (poller != null) {
        poller.close();
      }
      if (monitor != null) {
        context.destroySocket(monitor);
      }
      context.destroySocket(sub);
    }
  }

  private void catchUp() {
    try {
      List<VllmReplayClient.Replayed> batches = replay.replayFrom(expected);
      if (!batches.isEmpty() && batches.get(0).sequence() > expected) {
        // The publisher no longer buffers our position: history is lost.
        long from = expected;
        listener.onGap(from, batches.get(0).sequence(), false);
        if (from > 0) {
          resync("replay buffer starts at " + batches.get(0).sequence() + ", needed " + from);
        }
        expected = batches.get(0).sequence();
      }
      deliverReplayed(batches, Long.MAX_VALUE);
    } catch (VllmReplayClient.ReplayException e) {
      // Publisher not reachable yet: live messages will reveal any hole later.
      LOG.log(
          Level.FINE,
          "initial replay from {0} failed: {1}",
          new Object[] {config.replayEndpoint(), e.getMessage()});
      if (expected == 0) {
        expected = -1;
      }
    }
  }

  private void handle(VllmKvMessage m) {
    long seq = m.sequence();
    if (m.publisherId() != null) {
      if (publisherId != null && !Arrays.equals(publisherId, m.publisherId())) {
        resync("publisher restarted (new publisher id)");
        expected = -1;
      }
      publisherId = m.publisherId();
    }
    if (expected < 0) {
      expected = seq;
    }
    if (seq < expected) {
      if (seq == 0 && m.publisherId() == null) {
        resync("publisher restarted (sequence back to 0 from " + expected + ")");
        expected = 0;
      } else {
        return; // duplicate of something already delivered (e.g. by replay)
      }
    }
    if (seq > expected) {
      fillGap(expected, seq);
    }
    if (seq == expected) {
      deliver(seq, m.payload(), false);
    }
  }

  /** Fills [from, to) from the replay socket, or resyncs and rebuilds from what it still has. */
  private void fillGap(long from, long to) {
    // Two attempts: a busy publisher serves replay between its own sends, and one lost or late
    // answer should not cost a full clear-and-rebuild.
    for (int attempt = 1; replay != null && attempt <= REPLAY_ATTEMPTS; attempt++) {
      try {
        List<VllmReplayClient.Replayed> batches = replay.replayFrom(from);
        if (!batches.isEmpty() && batches.get(0).sequence() == from && covers(batches, from, to)) {
          listener.onGap(from, to, true);
          deliverReplayed(batches, to);
          return;
        }
        break; // answered, but the publisher no longer buffers the hole
      } catch (VllmReplayClient.ReplayException e) {
        LOG.log(
            Level.WARNING,
            "replay of [{0}, {1}) from {2} failed (attempt {3}): {4}",
            new Object[] {from, to, config.replayEndpoint(), attempt, e.getMessage()});
      }
    }
    listener.onGap(from, to, false);
    rebuild("sequence gap [" + from + ", " + to + ") could not be replayed", to);
  }

  /** Resync, then re-deliver whatever the publisher still buffers below {@code to}. */
  private void rebuild(String reason, long to) {
    resync(reason);
    if (replay != null) {
      try {
        List<VllmReplayClient.Replayed> batches = replay.replayFrom(0);
        expected = batches.isEmpty() ? to : Math.min(batches.get(0).sequence(), to);
        deliverReplayed(batches, to);
      } catch (VllmReplayClient.ReplayException e) {
        LOG.log(Level.FINE, "rebuild replay failed: {0}", e.getMessage());
      }
    }
    expected = to;
  }

  private static boolean covers(List<VllmReplayClient.Replayed> batches, long from, long to) {
    long next = from;
    for (VllmReplayClient.Replayed r : batches) {
      if (r.sequence() == next) {
        next++;
      } else if (r.sequence() > next) {
        break;
      }
      if (next >= to) {
        return true;
      }
    }
    return next >= to;
  }

  private void deliverReplayed(List<VllmReplayClient.Replayed> batches, long to) {
    for (VllmReplayClient.Replayed r : batches) {
      if (r.sequence() >= to) {
        break;
      }
      if (r.sequence() == expected) {
        deliver(r.sequence(), r.payload(), true);
      }
    }
  }

  private void deliver(long seq, byte[] payload, boolean replayed) {
    VllmEventBatch batch;
    try {
      batch = decoder.decodeBatch(payload);
    } catch (EventDecodeException e) {
      listener.onDecodeError(seq, e);
      // The batch's effect is unknown: the state is no longer trustworthy.
      resync("batch " + seq + " undecodable: " + e.getMessage());
      expected = seq + 1;
      lastDelivered.set(seq);
      return;
    }
    expected = seq + 1;
    lastDelivered.set(seq);
    listener.onBatch(seq, batch, replayed);
  }

  private void resync(String reason) {
    LOG.log(
        Level.WARNING,
        "vLLM KV events from {0}: resync ({1})",
        new Object[] {config.endpoint(), reason});
    listener.onResync(reason);
  }
}
