package io.sightline.adapter.vllm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * Client of a vLLM publisher's replay socket ({@code replay_endpoint}, a ZMQ ROUTER).
 *
 * <p>Protocol ({@code vllm/distributed/kv_events.py} {@code _service_replay}; {@code
 * ../shared/reference/llmd.md} §1 "Replay"): the client sends {@code ["", start_seq (8 B BE)]} from
 * a DEALER (the ROUTER sees {@code [identity, "", start]}); the publisher answers one {@code ["",
 * seq, payload]} per buffered batch with {@code seq >= start}, then the end marker {@code ["", -1,
 * ""]}.
 *
 * <p>One DEALER is kept across requests: measured on loopback under load, a fresh DEALER per
 * request lost about 1 request in 300 (the connect handshake racing the request), a kept one none.
 * After any failed request the DEALER is discarded, so a late answer to an abandoned request can
 * never be mistaken for the next one. Not thread-safe: use it from the thread that owns the event
 * stream, and {@link #close()} it there.
 */
public final class VllmReplayClient implements AutoCloseable {

  /** One replayed batch, still undecoded. */
  public record Replayed(long sequence, byte[] payload) {}

  /** Why a replay produced no (complete) answer. */
  public static final class ReplayException extends Exception {
    private static final long serialVersionUID = 1L;

    public ReplayException(String message) {
      super(message);
    }
  }

  private final ZContext context;
  private final String endpoint;
  private final Duration timeout;
  private ZMQ.Socket dealer;

  public VllmReplayClient(ZContext context, String endpoint, Duration timeout) {
    this.context = Objects.requireNonNull(context, "context");
    this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  public String endpoint() {
    return endpoint;
  }

  /**
   * Requests every buffered batch from {@code startSeq} on and returns them in the order received
   * (ascending). Each receive waits at most the configured timeout.
   */
  public List<Replayed> replayFrom(long startSeq) throws ReplayException {
    boolean ok = false;
    try {
      List<Replayed> out = request(startSeq);
      ok = true;
      return out;
    } finally {
      if (!ok) {
        discard();
      }
    }
  }

  private List<Replayed> request(long startSeq) throws ReplayException {
    if (dealer == null) {
      dealer = context.createSocket(SocketType.DEALER);
      dealer.setLinger(0);
      dealer.setReceiveTimeOut((int) Math.max(1, timeout.toMillis()));
      dealer.setSendTimeOut((int) Math.max(1, timeout.toMillis()));
      if (!dealer.connect(endpoint)) {
        throw new ReplayException("cannot connect to replay endpoint " + endpoint);
      }
    }
    ZMsg request = new ZMsg();
    request.add(new byte[0]);
    request.add(VllmKvMessage.sequenceFrame(startSeq));
    if (!request.send(dealer)) {
      throw new ReplayException("replay request to " + endpoint + " not sent");
    }
    List<Replayed> out = new ArrayList<>();
    while (true) {
      ZMsg reply = ZMsg.recvMsg(dealer);
      if (reply == null) {
        throw new ReplayException(
            "replay from " + endpoint + " timed out after " + out.size() + " batches");
      }
      List<byte[]> frames = new ArrayList<>();
      reply.forEach(f -> frames.add(f.getData()));
      reply.destroy();
      // Strip the empty delimiter the ROUTER echoes back.
      if (!frames.isEmpty() && frames.get(0).length == 0) {
        frames.remove(0);
      }
      if (frames.size() < 2) {
        throw new ReplayException("replay reply with " + frames.size() + " frames");
      }
      long seq;
      try {
        seq = VllmKvMessage.parseSequence(frames.get(0));
      } catch (EventDecodeException e) {
        throw new ReplayException("replay reply: " + e.getMessage());
      }
      if (seq == VllmKvMessage.END_OF_REPLAY) {
        return out;
      }
      out.add(new Replayed(seq, frames.get(1)));
    }
  }

  private void discard() {
    if (dealer != null) {
      context.destroySocket(dealer);
      dealer = null;
    }
  }

  /** Closes the DEALER (call from the owning thread). */
  @Override
  public void close() {
    discard();
  }
}
