package io.sightline.router.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class KvEventCodecTest {
  @Test
  void roundTripsAndRejectsCorruptMessages() throws Exception {
    EventBatchMessage m = KvEventBusContract.message("wörker", 3, 77, 1000);
    byte[] bytes = KvEventCodec.encode(m);
    assertThat(KvEventCodec.decode(bytes)).isEqualTo(m);
    for (int cut = 0; cut < bytes.length; cut += 7) {
      byte[] truncated = Arrays.copyOf(bytes, cut);
      assertThatThrownBy(() -> KvEventCodec.decode(truncated)).isInstanceOf(IOException.class);
    }
    byte[] badVersion = bytes.clone();
    badVersion[0] = 9;
    assertThatThrownBy(() -> KvEventCodec.decode(badVersion)).hasMessageContaining("version");
    byte[] trailing = Arrays.copyOf(bytes, bytes.length + 1);
    assertThatThrownBy(() -> KvEventCodec.decode(trailing)).hasMessageContaining("trailing");
  }
}
