package io.sightline.adapter.trtllm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import io.sightline.routing.multimodal.MmHashes;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Raw {@code /kv_cache_events} JSON written by hand after {@code KVCacheEventSerializer}. */
class TrtEventsTest {

  private final TrtKvEventDecoder decoder = new TrtKvEventDecoder();

  private static String block(String hash, int tokens, int first, String mmKeys) {
    StringBuilder t = new StringBuilder();
    for (int i = 0; i < tokens; i++) {
      if (i > 0) {
        t.append(',');
      }
      t.append("{\"type\":\"unique_token\",\"token_id\":")
          .append(first + i)
          .append(",\"token_extra_id\":0}");
    }
    return "{\"type\":\"stored_block\",\"block_hash\":"
        + hash
        + ",\"tokens\":["
        + t
        + "],\"cache_level\":0,\"priority\":35,\"mm_keys\":["
        + mmKeys
        + "]}";
  }

  private static String event(long id, int window, String data) {
    return "{\"event_id\":"
        + id
        + ",\"window_size\":"
        + window
        + ",\"attention_dp_rank\":0,"
        + "\"hash_algo\":\"v1\",\"data\":"
        + data
        + "}";
  }

  private List<TrtKvEvent> decode(String... events) throws TrtDecodeException {
    return decoder.decode(("[" + String.join(",", events) + "]").getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void decodesStoredWithUnsignedHashesMmKeysAndPartialBlocks() throws Exception {
    String digest = "0123456789abcdef" + "1".repeat(48);
    String stored =
        "{\"type\":\"stored\",\"parent_hash\":null,\"blocks\":["
            + block("18446744073709551615", 4, 10, "")
            + ","
            + block(
                "7", 4, 14, "{\"type\":\"mm_key\",\"hash\":\"" + digest + "\",\"start_offset\":2}")
            + ","
            + block("8", 2, 18, "")
            + "]}";
    List<TrtKvEvent> raw =
        decode(
            event(0, 64, "{\"type\":\"created\",\"num_blocks_per_cache_level\":[100,0]}"),
            event(1, 64, stored),
            event(2, 64, "{\"type\":\"removed\",\"block_hashes\":[8, 7]}"));
    assertThat(raw).hasSize(3);
    TrtEventNormalizer n = new TrtEventNormalizer("trt-1", 4);
    TrtEventNormalizer.Result r = n.normalize(raw);
    assertThat(r.gaps()).isEmpty();
    assertThat(r.rejections()).isEmpty();
    assertThat(r.events()).hasSize(2);
    KvEvent.Stored s = (KvEvent.Stored) r.events().get(0);
    assertThat(s.blockHashes()).containsExactly(-1L, 7L); // partial block 8 dropped
    assertThat(s.tokenIds()).containsExactly(10, 11, 12, 13, 14, 15, 16, 17);
    assertThat(s.blockSize()).isEqualTo(4);
    assertThat(s.sequence()).isEqualTo(1);
    assertThat(s.mmHashesOfBlock(0)).isEmpty();
    assertThat(s.mmHashesOfBlock(1)).containsExactly(0x0123456789abcdefL);
    // removal of the partial block is skipped
    assertThat(r.events().get(1))
        .isEqualTo(new KvEvent.Removed("trt-1", 0, 2, StorageTier.DEVICE, new long[] {7}));
    assertThat(n.lastEventId(0)).isEqualTo(2);
  }

  @Test
  void uuidWinsOverDigestAndUuidStringsHashLikeForwardedIds() throws Exception {
    long mm = 0x1122334455667788L;
    String stored =
        "{\"type\":\"stored\",\"parent_hash\":5,\"blocks\":["
            + block(
                "9",
                2,
                1,
                "{\"type\":\"mm_key\",\"hash\":\""
                    + "f".repeat(64)
                    + "\",\"start_offset\":0,"
                    + "\"uuid\":\""
                    + MmHashes.forwardable(mm)
                    + "\"}")
            + "]}";
    var r = new TrtEventNormalizer("w", 2).normalize(decode(event(3, 0, stored)));
    KvEvent.Stored s = (KvEvent.Stored) r.events().get(0);
    assertThat(s.parentHash()).isEqualTo(5L);
    assertThat(s.mmHashesOfBlock(0)).containsExactly(mm);
  }

  @Test
  void gapsClearAndRestartsClear() throws Exception {
    TrtEventNormalizer n = new TrtEventNormalizer("w", 2);
    String s1 =
        "{\"type\":\"stored\",\"parent_hash\":null,\"blocks\":[" + block("1", 2, 1, "") + "]}";
    n.normalize(decode(event(0, 32, "{\"type\":\"created\"}"), event(1, 32, s1)));
    var gap = n.normalize(decode(event(4, 32, s1)));
    assertThat(gap.gaps()).containsExactly(new TrtEventNormalizer.Gap(0, 2, 4));
    assertThat(gap.events().get(0)).isEqualTo(new KvEvent.Cleared("w", 0, 4));
    assertThat(gap.events().get(1)).isInstanceOf(KvEvent.Stored.class);
    var restart = n.normalize(decode(event(0, 32, "{\"type\":\"created\"}"), event(1, 32, s1)));
    assertThat(restart.restarts()).isEqualTo(1);
    assertThat(restart.gaps()).isEmpty();
    assertThat(restart.events().get(0)).isEqualTo(new KvEvent.Cleared("w", 0, 0));
  }

  @Test
  void resumeAfterDetectsEventsLostDuringHandOver() throws Exception {
    TrtEventNormalizer n = new TrtEventNormalizer("w", 2);
    n.resumeAfter(0, 9);
    String rm = "{\"type\":\"removed\",\"block_hashes\":[1]}";
    assertThat(n.normalize(decode(event(10, 0, rm))).gaps()).isEmpty();
    assertThat(n.normalize(decode(event(12, 0, rm))).gaps()).hasSize(1);
  }

  @Test
  void smallerWindowsOversizedBlocksAndUpdatesAreDropped() throws Exception {
    TrtEventNormalizer n = new TrtEventNormalizer("w", 2);
    String small =
        "{\"type\":\"stored\",\"parent_hash\":null,\"blocks\":[" + block("1", 2, 1, "") + "]}";
    String oversized =
        "{\"type\":\"stored\",\"parent_hash\":null,\"blocks\":[" + block("2", 3, 1, "") + "]}";
    String updated =
        "{\"type\":\"updated\",\"block_hash\":1,\"cache_level\":{\"type\":\"event_diff\","
            + "\"new_value\":1,\"old_value\":0}}";
    var r =
        n.normalize(
            decode(
                event(0, 4096, "{\"type\":\"created\"}"),
                event(1, 512, "{\"type\":\"created\"}"),
                event(2, 512, small),
                event(3, 4096, oversized),
                event(4, 4096, updated),
                event(5, 4096, "{\"type\":\"mystery\"}")));
    assertThat(r.events()).isEmpty();
    assertThat(r.ignored()).isEqualTo(2);
    assertThat(r.rejections()).hasSize(2);
  }

  @Test
  void malformedResponsesGiveCheckedErrors() {
    assertThatThrownBy(() -> decoder.decode("{".getBytes())).isInstanceOf(TrtDecodeException.class);
    assertThatThrownBy(() -> decoder.decode("{\"a\":1}".getBytes()))
        .isInstanceOf(TrtDecodeException.class)
        .hasMessageContaining("list");
    assertThatThrownBy(() -> decode("{\"data\":{}}")).hasMessageContaining("event_id");
    assertThatThrownBy(
            () -> decode(event(0, 0, "{\"type\":\"removed\",\"block_hashes\":[\"zz\"]}")))
        .isInstanceOf(TrtDecodeException.class);
  }

  @Test
  void v2HexStringHashesUseTheirFirst16HexDigits() throws Exception {
    var raw =
        decode(
            event(
                0,
                0,
                "{\"type\":\"removed\",\"block_hashes\":[\"00000000000000ff"
                    + "0".repeat(48)
                    + "\"]}"));
    assertThat(((TrtKvEvent.Removed) raw.get(0).data()).blockHashes()).containsExactly(255L);
  }
}
