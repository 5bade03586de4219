package io.sightline.routing.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import io.sightline.routing.expansion.MmScheme;
import io.sightline.routing.hashing.BlockHasher;
import io.sightline.routing.multimodal.MmHashes;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Vectors from ../shared/reference/dynamo.md §1.1 (computed with python xxhash). */
class StoredBlockConverterTest {
  private static final int IMG = 151655;

  private static KvEvent.Stored stored(int[] tokens, int blockSize, List<long[]> mm) {
    long[] hashes = new long[tokens.length / Math.max(1, blockSize)];
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = 100 + i;
    }
    return new KvEvent.Stored(
        "w", 0, -1, StorageTier.DEVICE, hashes, null, tokens, blockSize, mm, null, null);
  }

  private static long[] local(StoredBlockConverter.Result r) {
    assertThat(r).isInstanceOf(StoredBlockConverter.Converted.class);
    return ((StoredBlockConverter.Converted) r).localHashes();
  }

  @Test
  void textBlockMatchesDynamoVector() {
    var c = StoredBlockConverter.textOnly(4);
    assertThat(local(c.convert(stored(new int[] {0, 1, 2, 3}, 4, null))))
        .containsExactly(9143094415614847814L);
  }

  @Test
  void gen2RewritesImageRunToPadValueLikeDynamo() {
    var c = new StoredBlockConverter(4, MmScheme.GEN2, IMG);
    var ev = stored(new int[] {10, 20, IMG, IMG}, 4, List.of(new long[] {0x1234}));
    assertThat(MmHashes.padValue(0x1234)).isEqualTo(1004660);
    assertThat(local(c.convert(ev)))
        .containsExactly(Long.parseUnsignedLong("16777335482164611395"));
  }

  @Test
  void gen1AppendsMmHashLikeDynamo() {
    var c = new StoredBlockConverter(4, MmScheme.GEN1, IMG);
    var ev = stored(new int[] {10, 20, IMG, IMG}, 4, List.of(new long[] {0x1234}));
    assertThat(local(c.convert(ev))).containsExactly(4731275913830988595L);
  }

  @Test
  void offIgnoresImages() {
    var c = new StoredBlockConverter(4, MmScheme.OFF, IMG);
    var ev = stored(new int[] {10, 20, IMG, IMG}, 4, List.of(new long[] {0x1234}));
    assertThat(local(c.convert(ev)))
        .containsExactly(BlockHasher.of(4).localHashes(new int[] {10, 20, IMG, IMG}));
  }

  @Test
  void gen2AdvancesObjectPerRunAndClampsAtLast() {
    var c = new StoredBlockConverter(8, MmScheme.GEN2, IMG);
    long a = 0xAAAAL;
    long b = 0xBBBBL;
    int[] tokens = {IMG, IMG, 5, IMG, 6, IMG, IMG, 7};
    var ev = stored(tokens, 8, List.of(new long[] {a, b}));
    int pa = MmHashes.padValue(a);
    int pb = MmHashes.padValue(b);
    int[] expected = {pa, pa, 5, pb, 6, pb, pb, 7}; // third run clamps at the last object
    assertThat(local(c.convert(ev))).containsExactly(BlockHasher.of(8).localHashes(expected));
  }

  @Test
  void splitsMultipleSizedEngineBlocks() {
    var c = StoredBlockConverter.textOnly(4);
    var r = c.convert(stored(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, 8, null));
    assertThat(((StoredBlockConverter.Converted) r).span()).isEqualTo(2);
    assertThat(local(r))
        .containsExactly(9143094415614847814L, Long.parseUnsignedLong("12124091508212882195"));
  }

  @Test
  void gen1SplitAssignsObjectsToTheSubBlocksTheirRunsOverlap() {
    var c = new StoredBlockConverter(4, MmScheme.GEN1, IMG);
    long a = 42;
    long b = 43;
    int[] tokens = {1, IMG, IMG, IMG, IMG, 2, 3, 4, IMG, 5, 6, 7};
    var ev = stored(tokens, 12, List.of(new long[] {a, b}));
    long[] expected =
        BlockHasher.of(4)
            .localHashes(
                tokens, tokens.length, List.of(new long[] {a}, new long[] {a}, new long[] {b}));
    assertThat(local(c.convert(ev))).containsExactly(expected);
  }

  @Test
  void loraAndSaltSelectTheSeed() {
    var c = StoredBlockConverter.textOnly(4);
    var ev =
        new KvEvent.Stored(
            "w",
            0,
            -1,
            StorageTier.DEVICE,
            new long[] {1},
            null,
            new int[] {0, 1, 2, 3},
            4,
            null,
            "adapter-a",
            null);
    assertThat(local(c.convert(ev))).containsExactly(6665157333201000639L);
  }

  @Test
  void rejectsNonMultipleBlockSize() {
    var c = StoredBlockConverter.textOnly(4);
    var r = c.convert(stored(new int[] {0, 1, 2, 3, 4, 5}, 6, null));
    assertThat(r).isInstanceOf(StoredBlockConverter.Rejected.class);
    assertThat(((StoredBlockConverter.Rejected) r).reason())
        .isEqualTo(StoredBlockConverter.REJECT_BLOCK_SIZE);
  }

  @Test
  void rejectsTokenCountMismatch() {
    var c = StoredBlockConverter.textOnly(4);
    var ev =
        new KvEvent.Stored(
            "w",
            0,
            -1,
            StorageTier.DEVICE,
            new long[] {1, 2},
            null,
            new int[] {0, 1, 2, 3},
            4,
            null,
            null,
            null);
    assertThat(((StoredBlockConverter.Rejected) c.convert(ev)).reason())
        .isEqualTo(StoredBlockConverter.REJECT_TOKEN_COUNT);
  }

  @Test
  void gen2WithoutImageTokenIdRejectsImageBlocksButNotText() {
    var c = new StoredBlockConverter(4, MmScheme.GEN2, -1);
    var mm = stored(new int[] {10, 20, IMG, IMG}, 4, List.of(new long[] {0x1234}));
    assertThat(((StoredBlockConverter.Rejected) c.convert(mm)).reason())
        .isEqualTo(StoredBlockConverter.REJECT_NO_IMAGE_TOKEN);
    var text = stored(new int[] {0, 1, 2, 3}, 4, Arrays.asList((long[]) null));
    assertThat(local(c.convert(text))).containsExactly(9143094415614847814L);
  }
}
