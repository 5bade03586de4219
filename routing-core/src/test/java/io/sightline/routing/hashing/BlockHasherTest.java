package io.sightline.routing.hashing;

import static org.assertj.core.api.Assertions.assertThat;

import com.dynatrace.hash4j.hashing.Hashing;
import io.sightline.routing.multimodal.MmHashes;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Dynamo's block-hash vectors ({@code ../shared/reference/dynamo.md} §1.1). */
class BlockHasherTest {

  private static long u(String unsignedDecimal) {
    return Long.parseUnsignedLong(unsignedDecimal);
  }

  private static int[] range(int fromInclusive, int toExclusive) {
    return IntStream.range(fromInclusive, toExclusive).toArray();
  }

  @Test
  void xxh3ReferenceVector() {
    long h = Hashing.xxh3_64(1337L).hashBytesToLong("test data".getBytes(StandardCharsets.UTF_8));
    assertThat(h).isEqualTo(u("13226331709069118873"));
  }

  @Test
  void singleBlock() {
    assertThat(BlockHasher.of(4).localHashes(new int[] {0, 1, 2, 3}))
        .containsExactly(u("9143094415614847814"));
  }

  @Test
  void twoBlocksAndChain() {
    long[] local = BlockHasher.of(4).localHashes(range(0, 8));
    assertThat(local).containsExactly(u("9143094415614847814"), u("12124091508212882195"));
    assertThat(BlockHasher.sequenceHashes(local)[1]).isEqualTo(u("9510318385840434533"));
  }

  @Test
  void fourBlocksLocalAndSequence() {
    long[] local = BlockHasher.of(4).localHashes(range(1, 17));
    assertThat(local)
        .containsExactly(
            u("14643705804678351452"),
            u("16777012769546811212"),
            u("483935686894639516"),
            u("135165725823939817"));
    assertThat(BlockHasher.sequenceHashes(local))
        .containsExactly(
            u("14643705804678351452"),
            u("4945711292740353085"),
            u("12583592247330656132"),
            u("1921452330601040443"));
  }

  @Test
  void loraAndNamespaceSalts() {
    assertThat(BlockHasher.seedFor("adapter-a", null)).isEqualTo(u("8842669519798868182"));
    assertThat(BlockHasher.of(4, "adapter-a", null).localHashes(range(0, 4)))
        .containsExactly(u("6665157333201000639"));
    assertThat(BlockHasher.seedFor("adapter-a", "tenant-a")).isEqualTo(u("10790858310771630931"));
    assertThat(BlockHasher.of(4, "adapter-a", "tenant-a").localHashes(range(0, 4)))
        .containsExactly(u("8269515957840517240"));
    assertThat(BlockHasher.seedFor(null, "tenant-a")).isEqualTo(u("1948188790972764086"));
    assertThat(BlockHasher.of(4, null, "tenant-a").localHashes(range(0, 4)))
        .containsExactly(u("17009624042690211646"));
    assertThat(BlockHasher.seedFor("", "")).isEqualTo(BlockHasher.SEED);
  }

  @Test
  void gen1AppendsSortedMmHashes() {
    long[] withMm =
        BlockHasher.of(2)
            .localHashes(new int[] {0, 1, 2, 3}, 4, Arrays.asList(new long[] {42}, null));
    assertThat(withMm).containsExactly(u("6100948656312251355"), u("10731123482949079648"));
    assertThat(BlockHasher.of(2).localHashes(new int[] {0, 1, 2, 3}))
        .containsExactly(u("10918435022357402928"), u("10731123482949079648"));
    assertThat(BlockHasher.of(2).localHash(new int[] {5, 5}, new long[] {7, 3}))
        .isEqualTo(u("9201934329781616396"));
    assertThat(
            BlockHasher.of(4)
                .localHashes(
                    new int[] {10, 20, 151655, 151655}, 4, List.<long[]>of(new long[] {0x1234})))
        .containsExactly(u("4731275913830988595"));
  }

  @Test
  void gen2PadValues() {
    assertThat(MmHashes.padValue(0x1234)).isEqualTo(1004660);
    assertThat(MmHashes.padValue(0)).isEqualTo(1_000_000);
    assertThat(MmHashes.padValue((1L << 30) | 0xCAFE)).isEqualTo(1_000_000 + 0xCAFE);
    assertThat(BlockHasher.of(4).localHashes(new int[] {10, 20, 1004660, 1004660}))
        .containsExactly(u("16777335482164611395"));
  }

  @Test
  void partialBlocksAreNeverHashed() {
    for (int b : new int[] {11, 32, 64}) {
      BlockHasher h = BlockHasher.of(b);
      assertThat(h.localHashes(range(0, b))).hasSize(1);
      assertThat(h.localHashes(range(0, b + 1))).hasSize(1);
      assertThat(h.localHashes(range(0, 2 * b + 1))).hasSize(2);
    }
    assertThat(BlockHasher.of(0).localHashes(range(0, 10))).isEmpty();
  }
}
