package io.sightline.sim;

import io.sightline.sim.http.Json;
import org.zeromq.ZMQ;

/** Helpers for ZMQ subscribers in tests. */
final class ZmqTestSupport {
  private ZmqTestSupport() {}

  /**
   * Waits until {@code sub} really receives the worker's events (PUB drops everything sent before a
   * subscription has propagated — the "slow joiner"; a fixed sleep is flaky on a loaded machine),
   * then restarts the worker so the test starts from an empty cache and sequence 0.
   */
  static void awaitSubscription(SimulatedWorker worker, ZMQ.Socket sub) throws Exception {
    int saved = sub.getReceiveTimeOut();
    sub.setReceiveTimeOut(300);
    try {
      for (int attempt = 0; attempt < 100; attempt++) {
        var body = Json.MAPPER.createObjectNode().put("max_tokens", 1);
        var ids = body.putArray("prompt");
        for (int i = 0; i < 17; i++) {
          ids.add(900_000 + attempt * 100 + i);
        }
        SimClient.post(worker.baseUrl() + "/v1/completions", body);
        if (attempt > 0 && attempt % 5 == 0) {
          // Seen about once in ten runs: the SUB's first TCP connect stalls for ~30 s (the
          // length of Linux's SYN retransmission back-off) although the PUB is bound. A fresh
          // connect gets through at once, so reconnect instead of waiting the stall out.
          sub.disconnect(worker.eventEndpoint());
          sub.connect(worker.eventEndpoint());
        }
        if (sub.recv() != null) {
          while (sub.recv() != null) {
            // drain the warm-up batches
          }
          worker.restart();
          return;
        }
      }
      throw new AssertionError(
          "subscription never became live: "
              + worker.publisher().publishedBatches()
              + " batches published to "
              + worker.eventEndpoint());
    } finally {
      sub.setReceiveTimeOut(saved);
    }
  }
}
