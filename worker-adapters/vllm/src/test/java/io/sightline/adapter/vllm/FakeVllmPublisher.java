package io.sightline.adapter.vllm;

import java.util.ArrayDeque;
import java.util.Deque;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * A test double of vLLM's {@code ZmqEventPublisher}: PUB socket with {@code [topic, seq, payload]}
 * frames, a bounded replay buffer, and a ROUTER replay socket that answers {@code [id, "", start]}
 * with {@code [id, "", seq, payload]}… and the {@code -1} end marker. Batches can be "dropped"
 * (buffered but never sent live) to create holes.
 */
public final class FakeVllmPublisher implements AutoCloseable {
  private final ZContext ctx = new ZContext(1);
  private ZMQ.Socket pub;
  private final int pubPort;
  private final int replayPort;
  private final Deque<Object[]> buffer = new ArrayDeque<>();
  private final int bufferSteps;
  private final Thread replayThread;
  private volatile boolean running = true;
  private volatile boolean replayEnabled = true;
  private long nextSeq;

  public FakeVllmPublisher(int bufferSteps) {
    this.bufferSteps = bufferSteps;
    pub = ctx.createSocket(SocketType.PUB);
    pub.setLinger(0);
    pubPort = pub.bindToRandomPort("tcp://127.0.0.1");
    ZMQ.Socket router = ctx.createSocket(SocketType.ROUTER);
    router.setLinger(0);
    router.setReceiveTimeOut(50);
    replayPort = router.bindToRandomPort("tcp://127.0.0.1");
    replayThread =
        new Thread(
            () -> {
              while (running) {
                ZMsg req = ZMsg.recvMsg(router);
                if (req == null || !replayEnabled) {
                  continue;
                }
                byte[] id = req.pop().getData();
                req.pop();
                long start = seqOf(req.pop().getData());
                Object[][] snapshot;
                synchronized (buffer) {
                  snapshot = buffer.toArray(new Object[0][]);
                }
                for (Object[] e : snapshot) {
                  if ((long) e[0] >= start) {
                    ZMsg reply = new ZMsg();
                    reply.add(id);
                    reply.add(new byte[0]);
                    reply.add(VllmKvMessage.sequenceFrame((long) e[0]));
                    reply.add((byte[]) e[1]);
                    reply.send(router);
                  }
                }
                ZMsg end = new ZMsg();
                end.add(id);
                end.add(new byte[0]);
                end.add(VllmKvMessage.sequenceFrame(-1));
                end.add(new byte[0]);
                end.send(router);
              }
              ctx.destroySocket(router);
            },
            "fake-vllm-replay");
    replayThread.setDaemon(true);
    replayThread.start();
  }

  private static long seqOf(byte[] b) {
    try {
      return VllmKvMessage.parseSequence(b);
    } catch (EventDecodeException e) {
      throw new IllegalStateException(e);
    }
  }

  public String endpoint() {
    return "tcp://127.0.0.1:" + pubPort;
  }

  public String replayEndpoint() {
    return "tcp://127.0.0.1:" + replayPort;
  }

  public void setReplayEnabled(boolean enabled) {
    this.replayEnabled = enabled;
  }

  /** Closes the PUB socket (subscribers see a disconnect). */
  public synchronized void closePub() {
    ctx.destroySocket(pub);
  }

  /** Binds a new PUB socket on the same port (subscribers reconnect). */
  public synchronized void reopenPub() throws InterruptedException {
    for (int attempt = 0; ; attempt++) {
      try {
        ZMQ.Socket s = ctx.createSocket(SocketType.PUB);
        s.setLinger(0);
        s.bind("tcp://127.0.0.1:" + pubPort);
        pub = s;
        return;
      } catch (org.zeromq.ZMQException e) {
        if (attempt > 50) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  /** Restart: sequence back to 0 and an empty buffer, as a new engine process. */
  public void restart() {
    synchronized (buffer) {
      buffer.clear();
      nextSeq = 0;
    }
  }

  /** Publishes (or, if {@code drop}, only buffers) a batch; returns its sequence. */
  public long publish(byte[] payload, boolean drop) {
    long seq;
    synchronized (buffer) {
      seq = nextSeq++;
      buffer.addLast(new Object[] {seq, payload});
      while (buffer.size() > bufferSteps) {
        buffer.removeFirst();
      }
    }
    if (!drop) {
      ZMsg m = new ZMsg();
      m.add("kv@test".getBytes());
      m.add(VllmKvMessage.sequenceFrame(seq));
      m.add(payload);
      m.send(pub);
    }
    return seq;
  }

  @Override
  public void close() {
    running = false;
    try {
      replayThread.join(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    ctx.close();
  }
}
