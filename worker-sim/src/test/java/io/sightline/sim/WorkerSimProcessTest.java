package io.sightline.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The launcher spawns a real JVM running several workers on consecutive ports. */
class WorkerSimProcessTest {
  @Test
  void startsAFleetInAChildProcess() throws Exception {
    try (WorkerSimProcess sim =
        WorkerSimProcess.start(
            List.of("--workers", "2", "--speedup", "Infinity", "--served-model-name", "p"))) {
      assertThat(sim.workers()).hasSize(2);
      String url = sim.workers().get(1).get("base_url").asText();
      assertThat(SimClient.get(url + "/health").status()).isEqualTo(200);
      SimClient.Response r =
          SimClient.post(url + "/v1/chat/completions", SimClient.chat("p", "hello", 3));
      assertThat(r.status()).isEqualTo(200);
      assertThat(sim.workers().get(0).get("kv_events").asText()).startsWith("tcp://");
    }
  }
}
