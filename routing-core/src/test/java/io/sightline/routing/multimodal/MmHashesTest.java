package io.sightline.routing.multimodal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MmHashesTest {

  @Test
  void forwardableFormIsSixteenHexDigitsAndFortyEightZeros() {
    String f = MmHashes.forwardable(0x0123456789abcdefL);
    assertThat(f).hasSize(64).isEqualTo("0123456789abcdef" + "0".repeat(48));
    assertThat(MmHashes.forwardable(-1L)).startsWith("ffffffffffffffff");
  }

  @Test
  void identifierRoundTrip() {
    assertThat(MmHashes.fromIdentifier("0123456789abcdef".repeat(4))).hasValue(0x0123456789abcdefL);
    long h = 0xfedcba9876543210L;
    assertThat(MmHashes.fromIdentifier(MmHashes.forwardable(h))).hasValue(h);
  }

  @Test
  void opaqueIdentifiersHashWithSeedZero() {
    assertThat(MmHashes.fromIdentifier("opaque-renderer-image-0"))
        .hasValue(Long.parseUnsignedLong("14437604544409538977"));
    assertThat(MmHashes.fromIdentifier("")).isEmpty();
    assertThat(MmHashes.fromIdentifier(null)).isEmpty();
  }
}
