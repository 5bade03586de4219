package io.sightline.router.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Per-rank endpoints follow vLLM's {@code ZmqEventPublisher.offset_endpoint_port}. */
class VllmBridgeEndpointTest {
  @Test
  void offsetsTcpPortsAndSuffixesInprocAndIpcByRank() {
    assertThat(VllmBridge.offsetEndpoint("tcp://10.0.0.5:5557", 0))
        .isEqualTo("tcp://10.0.0.5:5557");
    assertThat(VllmBridge.offsetEndpoint("tcp://10.0.0.5:5557", 3))
        .isEqualTo("tcp://10.0.0.5:5560");
    assertThat(VllmBridge.offsetEndpoint("tcp://[::1]:5559", 1)).isEqualTo("tcp://[::1]:5560");
    assertThat(VllmBridge.offsetEndpoint("inproc://cache", 2)).isEqualTo("inproc://cache_dp2");
    assertThat(VllmBridge.offsetEndpoint("ipc:///tmp/kv", 1)).isEqualTo("ipc:///tmp/kv_dp1");
    assertThat(VllmBridge.offsetEndpoint("tcp://host:notaport", 1))
        .isEqualTo("tcp://host:notaport");
  }
}
