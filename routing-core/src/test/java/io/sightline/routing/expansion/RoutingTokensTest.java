package io.sightline.routing.expansion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sightline.routing.hashing.BlockHasher;
import io.sightline.routing.multimodal.MmHashes;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Routing-token expansion against Dynamo's vectors ({@code ../shared/reference/dynamo.md}). */
class RoutingTokensTest {

  @Test
  void dynamoExpansionExampleWithBos() throws Exception {
    // dynamo.md §5 step 5: [10,99,11,99,12], placeholder 99, counts [2,3], BOS 1.
    long h1 = 0x1111L;
    long h2 = 0x2222L;
    RoutingTokens gen1 =
        RoutingTokens.expand(
            new int[] {10, 99, 11, 99, 12},
            99,
            List.of(new ImageSlot(h1, 2), new ImageSlot(h2, 3)),
            MmScheme.GEN1,
            OptionalInt.of(1));
    assertThat(gen1.tokenIds()).containsExactly(1, 10, 99, 99, 11, 99, 99, 99, 12);
    assertThat(gen1.length()).isEqualTo(9);
    assertThat(gen1.imageSpans())
        .containsExactly(
            new RoutingTokens.ImageSpan(2, 4, h1), new RoutingTokens.ImageSpan(5, 8, h2));

    RoutingTokens gen2 =
        RoutingTokens.expand(
            new int[] {10, 99, 11, 99, 12},
            99,
            List.of(new ImageSlot(h1, 2), new ImageSlot(h2, 3)),
            MmScheme.GEN2,
            OptionalInt.of(1));
    int f1 = MmHashes.padValue(h1);
    int f2 = MmHashes.padValue(h2);
    assertThat(gen2.tokenIds()).containsExactly(1, 10, f1, f1, 11, f2, f2, f2, 12);
    assertThat(gen2.blockMmHashes(4)).isEmpty();
  }

  @Test
  void gen2BlockHashMatchesDynamoVector() throws Exception {
    RoutingTokens rt =
        RoutingTokens.expand(
            new int[] {10, 20, 151655},
            151655,
            List.of(new ImageSlot(0x1234, 2)),
            MmScheme.GEN2,
            OptionalInt.empty());
    assertThat(rt.tokenIds()).containsExactly(10, 20, 1004660, 1004660);
    assertThat(rt.localHashes(BlockHasher.of(4)))
        .containsExactly(Long.parseUnsignedLong("16777335482164611395"));
  }

  @Test
  void gen1BlockHashMatchesDynamoVector() throws Exception {
    RoutingTokens rt =
        RoutingTokens.expand(
            new int[] {10, 20, 151655},
            151655,
            List.of(new ImageSlot(0x1234, 2)),
            MmScheme.GEN1,
            OptionalInt.empty());
    assertThat(rt.tokenIds()).containsExactly(10, 20, 151655, 151655);
    assertThat(rt.localHashes(BlockHasher.of(4)))
        .containsExactly(Long.parseUnsignedLong("4731275913830988595"));
  }

  @Test
  void gen1PerBlockInfoCoversEveryOverlappedBlockSortedUnsigned() throws Exception {
    long big = 0xF000_0000_0000_0001L; // negative as a signed long, largest unsigned
    long small = 7;
    // B=4: [t, img(big) x5, t, img(small) x3, t] -> spans [1,6) and [7,10); block 1 has both
    RoutingTokens rt =
        RoutingTokens.expand(
            new int[] {5, 9, 6, 9, 8},
            9,
            List.of(new ImageSlot(big, 5), new ImageSlot(small, 3)),
            MmScheme.GEN1,
            OptionalInt.empty());
    assertThat(rt.length()).isEqualTo(11);
    List<long[]> mm = rt.blockMmHashes(4);
    assertThat(mm).hasSize(3);
    assertThat(mm.get(0)).containsExactly(big);
    assertThat(mm.get(1)).containsExactly(small, big); // unsigned ascending
    assertThat(mm.get(2)).containsExactly(small);
    // The same image twice in one block is listed once (one mm object per hash per block).
    RoutingTokens twice =
        RoutingTokens.expand(
            new int[] {9, 9},
            9,
            List.of(new ImageSlot(small, 1), new ImageSlot(small, 1)),
            MmScheme.GEN1,
            OptionalInt.empty());
    assertThat(twice.blockMmHashes(4).get(0)).containsExactly(small);
    // Hashes equal BlockHasher's with the explicit per-block info.
    BlockHasher h = BlockHasher.of(4);
    assertThat(rt.localHashes(h)).containsExactly(h.localHashes(rt.tokenIds(), 11, mm));
  }

  @Test
  void fullReplacementsAreCopiedAndOnlyEmbeddingPositionsArePadded() throws Exception {
    // [boi, emb, emb, eoi] replacing prompt placeholder 7 (like Gemma: prompt carries boi).
    int[] replacement = {7, 5, 5, 8};
    ImageSlot slot = new ImageSlot(0x1234, 2, replacement, 5);
    assertThat(slot.length()).isEqualTo(4);
    RoutingTokens gen1 =
        RoutingTokens.expand(
            new int[] {1, 7, 2}, 7, List.of(slot), MmScheme.GEN1, OptionalInt.empty());
    assertThat(gen1.tokenIds()).containsExactly(1, 7, 5, 5, 8, 2);
    assertThat(gen1.imageSpans()).containsExactly(new RoutingTokens.ImageSpan(1, 5, 0x1234));
    RoutingTokens gen2 =
        RoutingTokens.expand(
            new int[] {1, 7, 2}, 7, List.of(slot), MmScheme.GEN2, OptionalInt.empty());
    assertThat(gen2.tokenIds()).containsExactly(1, 7, 1004660, 1004660, 8, 2);
    assertThat(replacement).containsExactly(7, 5, 5, 8); // not modified
  }

  @Test
  void offKeepsThePromptAndIgnoresImages() throws Exception {
    RoutingTokens rt =
        RoutingTokens.expand(
            new int[] {1, 9, 2},
            9,
            List.of(new ImageSlot(1, 100)),
            MmScheme.OFF,
            OptionalInt.empty());
    assertThat(rt.tokenIds()).containsExactly(1, 9, 2);
    assertThat(rt.imageSpans()).isEmpty();
    assertThat(RoutingTokens.textOnly(new int[] {3, 4}).tokenIds()).containsExactly(3, 4);
  }

  @Test
  void placeholderCountMustEqualImageCount() {
    assertThatThrownBy(
            () ->
                RoutingTokens.expand(
                    new int[] {9, 1, 9},
                    9,
                    List.of(new ImageSlot(1, 4)),
                    MmScheme.GEN2,
                    OptionalInt.empty()))
        .isInstanceOf(ExpansionException.class)
        .hasMessageContaining("2 image placeholder(s)")
        .hasMessageContaining("1 image(s)");
    assertThatThrownBy(
            () ->
                RoutingTokens.expand(
                    new int[] {9},
                    9,
                    List.of(new ImageSlot(1, -1)),
                    MmScheme.GEN1,
                    OptionalInt.empty()))
        .isInstanceOf(ExpansionException.class);
  }

  @Test
  void capOfOneMebitoken() throws Exception {
    int[] prompt = new int[1000];
    prompt[0] = 9;
    RoutingTokens atCap =
        RoutingTokens.expand(
            prompt,
            9,
            List.of(new ImageSlot(1, RoutingTokens.MAX_ROUTING_TOKENS - 999)),
            MmScheme.GEN2,
            OptionalInt.empty());
    assertThat(atCap.length()).isEqualTo(1_048_576);
    assertThatThrownBy(
            () ->
                RoutingTokens.expand(
                    prompt,
                    9,
                    List.of(new ImageSlot(1, RoutingTokens.MAX_ROUTING_TOKENS - 998)),
                    MmScheme.GEN2,
                    OptionalInt.empty()))
        .isInstanceOf(ExpansionException.class)
        .hasMessageContaining("1048577");
    assertThatThrownBy(
            () ->
                RoutingTokens.expand(
                    prompt,
                    9,
                    List.of(new ImageSlot(1, Integer.MAX_VALUE)),
                    MmScheme.GEN1,
                    OptionalInt.empty()))
        .isInstanceOf(ExpansionException.class);
  }

  @Test
  void tokenIdsAreDefensiveCopies() throws Exception {
    RoutingTokens rt = RoutingTokens.textOnly(new int[] {1, 2});
    int[] ids = rt.tokenIds();
    ids[0] = 42;
    assertThat(rt.tokenIds()).containsExactly(1, 2);
    assertThat(MmScheme.parse(" Gen1 ")).contains(MmScheme.GEN1);
    assertThat(MmScheme.parse("gen3")).isEmpty();
    assertThat(Arrays.stream(MmScheme.values()).map(Enum::name))
        .containsExactly("GEN1", "GEN2", "OFF");
  }
}
