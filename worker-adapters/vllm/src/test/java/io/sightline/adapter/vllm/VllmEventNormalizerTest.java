package io.sightline.adapter.vllm;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import io.sightline.routing.multimodal.MmHashes;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class VllmEventNormalizerTest {

  private final VllmEventNormalizer normalizer = new VllmEventNormalizer("w1", 0);

  private static VllmKvEvent.BlockStored stored(
      long[] hashes, Long parent, int[] tokens, int bs, List<List<ExtraKey>> extra) {
    return new VllmKvEvent.BlockStored(
        hashes, parent, tokens, bs, null, null, extra, null, null, false, null);
  }

  @Test
  void mapsExtraKeysToMmHashesPerBlock() {
    long mm = 0x0123456789abcdefL;
    String forwarded = MmHashes.forwardable(mm);
    var s =
        new VllmKvEvent.BlockStored(
            new long[] {1, 2},
            null,
            new int[] {1, 2, 3, 4},
            2,
            "GPU",
            "adapter",
            List.of(
                List.of(ExtraKey.bare("adapter")),
                List.of(ExtraKey.bare("adapter"), new ExtraKey(forwarded, OptionalInt.of(-1)))),
            0,
            "full_attention",
            false,
            null);
    var result = normalizer.normalize(new VllmEventBatch(0, List.of(s), 3, 0), 42);
    assertThat(result.rejections()).isEmpty();
    var e = (KvEvent.Stored) result.events().get(0);
    assertThat(e.workerId()).isEqualTo("w1");
    assertThat(e.dpRank()).isEqualTo(3);
    assertThat(e.sequence()).isEqualTo(42);
    assertThat(e.loraName()).isEqualTo("adapter");
    assertThat(e.mmHashesOfBlock(0)).isEmpty();
    assertThat(e.mmHashesOfBlock(1)).containsExactly(mm);
  }

  @Test
  void bareStringIdentifiersAreMedia() {
    var s =
        stored(
            new long[] {1},
            null,
            new int[] {1, 2},
            2,
            List.of(List.of(ExtraKey.bare("opaque-renderer-image-0"))));
    var e =
        (KvEvent.Stored)
            normalizer.normalize(new VllmEventBatch(0, List.of(s), null, 0), 1).events().get(0);
    assertThat(e.mmHashesOfBlock(0))
        .containsExactly(Long.parseUnsignedLong("14437604544409538977"));
  }

  @Test
  void rejectsBadStoresAndOtherGroups() {
    var wrongCount = stored(new long[] {1, 2}, null, new int[] {1, 2, 3}, 2, List.of());
    var dup = stored(new long[] {5, 6}, 5L, new int[] {1, 2, 3, 4}, 2, List.of());
    var tokenless = stored(new long[] {1}, null, new int[0], 2, List.of());
    var group1 =
        new VllmKvEvent.BlockStored(
            new long[] {1}, null, new int[] {1, 2}, 2, null, null, List.of(), 1, null, false, null);
    var sliding =
        new VllmKvEvent.BlockStored(
            new long[] {1},
            null,
            new int[] {1, 2},
            2,
            null,
            null,
            List.of(),
            0,
            "sliding_window",
            false,
            null);
    var removedG1 = new VllmKvEvent.BlockRemoved(new long[] {1}, null, 1);
    var result =
        normalizer.normalize(
            new VllmEventBatch(
                0, List.of(wrongCount, dup, tokenless, group1, sliding, removedG1), null, 2),
            7);
    assertThat(result.events()).isEmpty();
    assertThat(result.rejections()).hasSize(7);
  }

  @Test
  void eagleDropsTheExtraTokenAndMediumMapsToTier() {
    var s =
        new VllmKvEvent.BlockStored(
            new long[] {1},
            null,
            new int[] {1, 2, 3},
            2,
            "CPU",
            null,
            List.of(),
            null,
            null,
            true,
            null);
    var result =
        normalizer.normalize(
            new VllmEventBatch(
                0,
                List.of(
                    s,
                    new VllmKvEvent.BlockRemoved(new long[] {1}, "CPU", null),
                    new VllmKvEvent.AllBlocksCleared()),
                null,
                0),
            9);
    var e = (KvEvent.Stored) result.events().get(0);
    assertThat(e.tokenIds()).containsExactly(1, 2);
    assertThat(e.tier()).isEqualTo(StorageTier.HOST);
    assertThat(result.events().get(1))
        .isEqualTo(new KvEvent.Removed("w1", 0, 9, StorageTier.HOST, new long[] {1}));
    assertThat(result.events().get(2)).isEqualTo(new KvEvent.Cleared("w1", 0, 9));
  }
}
