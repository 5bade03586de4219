package io.sightline.gateway.media;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import org.junit.jupiter.api.Test;

class DataUriTest {
  @Test
  void decodesBase64() {
    byte[] data = {1, 2, 3, 4, 5};
    String uri = "data:image/png;base64," + Base64.getEncoder().encodeToString(data);
    assertThat(DataUri.isDataUri(uri)).isTrue();
    assertThat(DataUri.decode(uri, 100)).containsExactly(data);
  }

  @Test
  void rejectsBadInput() {
    assertThatThrownBy(() -> DataUri.decode("data:image/png;base64,!!!", 100))
        .isInstanceOfSatisfying(
            MediaException.class,
            e -> assertThat(e.reason()).isEqualTo(MediaException.Reason.MALFORMED));
    assertThatThrownBy(() -> DataUri.decode("data:image/png,abc", 100))
        .isInstanceOf(MediaException.class);
    assertThatThrownBy(() -> DataUri.decode("data:image/png;base64", 100))
        .isInstanceOf(MediaException.class);
    String big = "data:image/png;base64," + Base64.getEncoder().encodeToString(new byte[1000]);
    assertThatThrownBy(() -> DataUri.decode(big, 100))
        .isInstanceOfSatisfying(
            MediaException.class,
            e -> assertThat(e.reason()).isEqualTo(MediaException.Reason.TOO_LARGE));
  }
}
