package io.sightline.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.sim.engine.TimingModel;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Metrics under load, and the injected faults. */
class FaultsAndMetricsTest {

  private static SimOptions fast() {
    return SimOptions.defaults()
        .withServedModelName("m")
        .withZmqPorts(-1, -1)
        .withTiming(TimingModel.DEFAULT.withSpeedup(Double.POSITIVE_INFINITY));
  }

  @Test
  void metricsMoveWithLoad() throws Exception {
    // 10 ms per token, 2 running at once: 6 concurrent requests queue up.
    SimOptions options = fast().withMaxNumSeqs(2).withTiming(new TimingModel(0, 0, 10, 1));
    try (SimulatedWorker w = SimulatedWorker.start(options)) {
      assertThat(gauge(w, "vllm:num_requests_running")).isZero();
      List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        ObjectNode body = SimClient.chat("m", "request number " + i, 40);
        inFlight.add(
            SimClient.HTTP.sendAsync(
                HttpRequest.newBuilder(URI.create(w.baseUrl() + "/v1/chat/completions"))
                    .timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                    .build(),
                HttpResponse.BodyHandlers.ofString()));
      }
      Thread.sleep(150);
      assertThat(gauge(w, "vllm:num_requests_running")).isEqualTo(2);
      assertThat(gauge(w, "vllm:num_requests_waiting")).isEqualTo(4);
      assertThat(gauge(w, "vllm:kv_cache_usage_perc")).isGreaterThan(0);
      for (var f : inFlight) {
        assertThat(f.get().statusCode()).isEqualTo(200);
      }
      assertThat(gauge(w, "vllm:num_requests_running")).isZero();
      assertThat(gauge(w, "vllm:num_requests_waiting")).isZero();
      assertThat(gauge(w, "vllm:prefix_cache_queries_total")).isGreaterThan(0);
      String text = SimClient.get(w.baseUrl() + "/metrics").body();
      assertThat(text).contains("vllm:cache_config_info{block_size=\"16\"");
      assertThat(text).contains("num_gpu_blocks=\"4096\"");
    }
  }

  @Test
  void prefixHitCounterCountsCachedTokens() throws Exception {
    try (SimulatedWorker w = SimulatedWorker.start(fast())) {
      String body = "{\"model\":\"m\",\"prompt\":" + ids(64) + ",\"max_tokens\":1}";
      SimClient.post(w.baseUrl() + "/v1/completions", body);
      SimClient.post(w.baseUrl() + "/v1/completions", body);
      assertThat(gauge(w, "vllm:prefix_cache_queries_total")).isEqualTo(128);
      assertThat(gauge(w, "vllm:prefix_cache_hits_total")).isEqualTo(48);
    }
  }

  @Test
  void errorRateAndSlowStart() throws Exception {
    try (SimulatedWorker w = SimulatedWorker.start(fast())) {
      SimClient.Response set =
          SimClient.post(w.baseUrl() + "/sim/faults", "{\"errorRate\":1.0,\"errorStatus\":503}");
      assertThat(set.status()).isEqualTo(200);
      SimClient.Response failed =
          SimClient.post(w.baseUrl() + "/v1/chat/completions", SimClient.chat("m", "x", 1));
      assertThat(failed.status()).isEqualTo(503);
      assertThat(failed.json().at("/error/code").asInt()).isEqualTo(503);
      assertThat(SimClient.post(w.baseUrl() + "/sim/faults", "{\"bogus\":1}").status())
          .isEqualTo(400);
      SimClient.HTTP.send(
          HttpRequest.newBuilder(URI.create(w.baseUrl() + "/sim/faults")).DELETE().build(),
          HttpResponse.BodyHandlers.discarding());
      SimClient.post(w.baseUrl() + "/sim/faults", "{\"slowStartMs\":400}");
      SimClient.post(w.baseUrl() + "/sim/restart", "");
      assertThat(SimClient.get(w.baseUrl() + "/health").status()).isEqualTo(503);
      Thread.sleep(500);
      assertThat(SimClient.get(w.baseUrl() + "/health").status()).isEqualTo(200);
    }
  }

  @Test
  void crashAfterTokensTruncatesTheStreamAndTakesTheWorkerDown() throws Exception {
    try (SimulatedWorker w = SimulatedWorker.start(fast())) {
      int port = w.port();
      SimClient.post(w.baseUrl() + "/sim/faults", "{\"crashAfterTokens\":3}");
      ObjectNode body = SimClient.chat("m", "crash me", 10);
      body.put("stream", true);
      String received;
      try {
        received = SimClient.post(w.baseUrl() + "/v1/chat/completions", body).body();
      } catch (IOException e) {
        received = null; // connection reset before the client could read a body
      }
      if (received != null) {
        assertThat(received).doesNotContain("[DONE]");
      }
      Thread.sleep(200);
      assertThat(w.isUp()).isFalse();
      assertThatThrownBy(() -> SimClient.get("http://127.0.0.1:" + port + "/health"))
          .isInstanceOf(IOException.class);
      w.restart();
      assertThat(w.port()).isEqualTo(port);
      assertThat(SimClient.get(w.baseUrl() + "/health").status()).isEqualTo(200);
      SimClient.Response ok =
          SimClient.post(w.baseUrl() + "/v1/chat/completions", SimClient.chat("m", "again", 3));
      assertThat(ok.status()).isEqualTo(200);
    }
  }

  @Test
  void crashWithRestartDelayComesBackByItself() throws Exception {
    try (SimulatedWorker w = SimulatedWorker.start(fast())) {
      w.faults().crashAfterTokens(0, 300L);
      try {
        SimClient.post(w.baseUrl() + "/v1/chat/completions", SimClient.chat("m", "boom", 2));
      } catch (IOException expected) {
        // the connection is dropped
      }
      long deadline = System.currentTimeMillis() + 10_000;
      while (!w.isReady() && System.currentTimeMillis() < deadline) {
        Thread.sleep(50);
      }
      assertThat(w.isReady()).isTrue();
      assertThat(w.faults().crashAfterTokens()).isNull(); // the crash fault fires once
      assertThat(
              SimClient.post(w.baseUrl() + "/v1/chat/completions", SimClient.chat("m", "ok", 2))
                  .status())
          .isEqualTo(200);
    }
  }

  @Test
  void hangAfterTokensStallsUntilCleared() throws Exception {
    try (SimulatedWorker w = SimulatedWorker.start(fast())) {
      SimClient.post(w.baseUrl() + "/sim/faults", "{\"hangAfterTokens\":2}");
      var pending =
          SimClient.HTTP.sendAsync(
              HttpRequest.newBuilder(URI.create(w.baseUrl() + "/v1/chat/completions"))
                  .timeout(Duration.ofSeconds(30))
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          SimClient.chat("m", "hang", 5).toString()))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      Thread.sleep(300);
      assertThat(pending).isNotDone();
      SimClient.HTTP.send(
          HttpRequest.newBuilder(URI.create(w.baseUrl() + "/sim/faults")).DELETE().build(),
          HttpResponse.BodyHandlers.discarding());
      assertThat(pending.get().statusCode()).isEqualTo(200);
    }
  }

  private static String ids(int n) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 1; i <= n; i++) {
      sb.append(i == 1 ? "" : ",").append(i);
    }
    return sb.append(']').toString();
  }

  static double gauge(SimulatedWorker w, String name) throws Exception {
    String text = SimClient.get(w.baseUrl() + "/metrics").body();
    Matcher m =
        Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{[^}]*\\} (\\S+)$").matcher(text);
    assertThat(m.find()).as(name + " in\n" + text).isTrue();
    return Double.parseDouble(m.group(1));
  }
}
