package io.sightline.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseFramerTest {
  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void splitsEventsAcrossArbitraryChunks() {
    String stream = "data: {\"a\":1}\n\ndata: {\"b\":2}\r\n\r\ndata: [DONE]\n\n";
    for (int chunk = 1; chunk <= stream.length(); chunk++) {
      SseFramer f = new SseFramer();
      List<String> events = new ArrayList<>();
      for (int i = 0; i < stream.length(); i += chunk) {
        for (byte[] e : f.feed(b(stream.substring(i, Math.min(stream.length(), i + chunk))))) {
          events.add(s(e));
        }
      }
      assertThat(events)
          .as("chunk size %d", chunk)
          .containsExactly("data: {\"a\":1}\n\n", "data: {\"b\":2}\r\n\r\n", "data: [DONE]\n\n");
      assertThat(f.rest()).isNull();
    }
  }

  @Test
  void dataLinesAreJoined() {
    assertThat(SseFramer.data(b("event: x\ndata: one\ndata:two\n\n"))).isEqualTo("one\ntwo");
    assertThat(SseFramer.data(b(": comment\n\n"))).isNull();
  }

  @Test
  void unterminatedTailIsKept() {
    SseFramer f = new SseFramer();
    assertThat(f.feed(b("data: x\n\ndata: partial"))).hasSize(1);
    assertThat(s(f.rest())).isEqualTo("data: partial");
  }
}
