package io.sightline.sim.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * vLLM {@code sha256_cbor} vectors from {@code ../shared/reference/llmd.md} §2, computed with cbor2
 * 6.1.4 under PYTHONHASHSEED="0".
 */
class VllmBlockHasherTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final int[] BLOCK0 = IntStream.rangeClosed(1, 16).toArray();
  private static final int[] BLOCK1 = IntStream.rangeClosed(17, 32).toArray();

  private final VllmBlockHasher hasher = VllmBlockHasher.withSeed("0");

  @Test
  void noneHashIsSha256OfCborSeedString() {
    assertThat(HEX.formatHex(hasher.noneHash()))
        .isEqualTo("4e1195df020de59e0d65a33a4279f1183e7ae4e5d980e309f8b55adff2e61c3e");
  }

  @Test
  void cborInputMatchesCbor2Bytes() {
    byte[] cbor = VllmBlockHasher.cborInput(hasher.noneHash(), BLOCK0, null);
    String expected =
        "835820"
            + "4e1195df020de59e0d65a33a4279f1183e7ae4e5d980e309f8b55adff2e61c3e"
            + "90"
            + "0102030405060708090a0b0c0d0e0f10"
            + "f6";
    assertThat(HEX.formatHex(cbor)).isEqualTo(expected);
  }

  @Test
  void chainedBlocksMatchVectors() {
    byte[] h0 = hasher.hashBlock(null, BLOCK0, null);
    assertThat(HEX.formatHex(h0))
        .isEqualTo("202da172482d928bbc42ab25b0151e2b895f13f41002e27b2ceabcfae6d332ea");
    assertThat(VllmBlockHasher.toEventHash(h0)).isEqualTo(3236607068019569386L);
    byte[] h1 = hasher.hashBlock(h0, BLOCK1, null);
    assertThat(HEX.formatHex(h1)).startsWith("4a0a3938").endsWith("27f5bf");
    assertThat(Long.toUnsignedString(VllmBlockHasher.toEventHash(h1)))
        .isEqualTo("2758186210834249151");
  }

  @Test
  void extraKeyVectors() {
    assertThat(u64(List.of(ExtraKey.text("my-lora")))).isEqualTo("15444946753610453501");
    assertThat(u64(List.of(ExtraKey.mm("abc123", 0)))).isEqualTo("17572019624568200256");
    assertThat(u64(List.of(ExtraKey.text("abc123")))).isEqualTo("7973423141787799316");
    assertThat(u64(List.of(ExtraKey.text("salt1")))).isEqualTo("4511955560064254276");
    assertThat(
            u64(
                List.of(
                    ExtraKey.text("my-lora"), ExtraKey.mm("abc123", 3), ExtraKey.text("salt1"))))
        .isEqualTo("8885921832297932489");
  }

  @Test
  void emptyExtraKeysHashLikeNone() {
    assertThat(hasher.hashBlock(null, BLOCK0, List.of()))
        .isEqualTo(hasher.hashBlock(null, BLOCK0, null));
  }

  @Test
  void negativeOffsetsAndLargeTokensEncodeMinimally() {
    byte[] cbor =
        VllmBlockHasher.cborInput(
            new byte[] {1}, new int[] {23, 24, 256, 65536}, List.of(ExtraKey.mm("x", -5)));
    assertThat(HEX.formatHex(cbor))
        .isEqualTo(
            "83" + "4101" + "84" + "17" + "1818" + "190100" + "1a00010000" + "81826178" + "24");
  }

  @Test
  void unsetSeedGivesRandomRoot() {
    assertThat(VllmBlockHasher.withSeed(null).noneHash())
        .isNotEqualTo(VllmBlockHasher.withSeed(null).noneHash());
  }

  @Test
  void overlongTextIsRejected() {
    assertThatThrownBy(
            () -> hasher.hashBlock(null, BLOCK0, List.of(ExtraKey.text("x".repeat(5000)))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private String u64(List<ExtraKey> extra) {
    return Long.toUnsignedString(
        VllmBlockHasher.toEventHash(hasher.hashBlock(null, BLOCK0, extra)));
  }
}
