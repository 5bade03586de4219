package io.sightline.adapter.vllm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigInteger;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * Builds raw vLLM payloads with an independent msgpack packer (not the decoder's code) in both
 * encodings, following vLLM's {@code kv_events.py} field order.
 */
class VllmEventDecoderTest {

  private final VllmEventDecoder decoder = new VllmEventDecoder();

  @Test
  void decodesPositionalBatchWithAllFields() throws Exception {
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    p.packArrayHeader(3).packDouble(1700000000.5);
    p.packArrayHeader(3);
    // BlockStored, 12 positional fields incl. tag
    p.packArrayHeader(12).packString("BlockStored");
    p.packArrayHeader(2).packLong(11).packLong(12);
    p.packLong(10); // parent
    p.packArrayHeader(4).packInt(1).packInt(2).packInt(3).packInt(4);
    p.packInt(2); // block_size
    p.packNil(); // lora_id
    p.packString("GPU");
    p.packNil(); // lora_name
    p.packArrayHeader(2);
    p.packNil();
    p.packArrayHeader(2).packString("img-a").packArrayHeader(2).packString("img-b").packInt(-3);
    p.packInt(0); // group_idx
    p.packString("full_attention");
    p.packNil(); // sliding window
    // BlockRemoved with medium
    p.packArrayHeader(4).packString("BlockRemoved").packArrayHeader(1).packLong(11);
    p.packString("CPU").packInt(0);
    p.packArrayHeader(1).packString("AllBlocksCleared");
    p.packInt(2); // dp rank

    VllmEventBatch batch = decoder.decodeBatch(p.toByteArray());
    assertThat(batch.timestamp()).isEqualTo(1700000000.5);
    assertThat(batch.dpRank()).isEqualTo(2);
    assertThat(batch.events()).hasSize(3);
    var stored = (VllmKvEvent.BlockStored) batch.events().get(0);
    assertThat(stored.blockHashes()).containsExactly(11L, 12L);
    assertThat(stored.parentHash()).isEqualTo(10L);
    assertThat(stored.tokenIds()).containsExactly(1, 2, 3, 4);
    assertThat(stored.blockSize()).isEqualTo(2);
    assertThat(stored.medium()).isEqualTo("GPU");
    assertThat(stored.loraName()).isNull();
    assertThat(stored.groupIdx()).isZero();
    assertThat(stored.kvCacheSpecKind()).isEqualTo("full_attention");
    assertThat(stored.extraKeys()).hasSize(2);
    assertThat(stored.extraKeys().get(0)).isEmpty();
    assertThat(stored.extraKeys().get(1))
        .containsExactly(
            new ExtraKey("img-a", OptionalInt.empty()), new ExtraKey("img-b", OptionalInt.of(-3)));
    var removed = (VllmKvEvent.BlockRemoved) batch.events().get(1);
    assertThat(removed.blockHashes()).containsExactly(11L);
    assertThat(removed.medium()).isEqualTo("CPU");
    assertThat(batch.events().get(2)).isInstanceOf(VllmKvEvent.AllBlocksCleared.class);
  }

  @Test
  void decodesOldFiveFieldStoredAndIgnoresTrailingBatchElements() throws Exception {
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    p.packArrayHeader(5).packDouble(1.0).packArrayHeader(1);
    p.packArrayHeader(5).packString("BlockStored").packArrayHeader(1).packLong(7).packNil();
    p.packArrayHeader(2).packInt(5).packInt(6).packInt(2);
    p.packNil().packString("future-field").packInt(99);

    VllmEventBatch batch = decoder.decodeBatch(p.toByteArray());
    var stored = (VllmKvEvent.BlockStored) batch.events().get(0);
    assertThat(stored.parentHash()).isNull();
    assertThat(stored.medium()).isNull();
    assertThat(stored.extraKeys()).isEmpty();
    assertThat(batch.dpRank()).isNull();
  }

  @Test
  void decodesNamedMapsAndIgnoresUnknownFieldsAndTypes() throws Exception {
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    p.packMapHeader(4).packString("ts").packDouble(2.0);
    p.packString("unknown_batch_field").packArrayHeader(1).packString("x");
    p.packString("events").packArrayHeader(3);
    p.packMapHeader(9).packString("type").packString("BlockStored");
    p.packString("block_hashes").packArrayHeader(1).packLong(-5); // int64 view of a u64
    p.packString("parent_block_hash").packNil();
    p.packString("token_ids").packArrayHeader(2).packInt(9).packInt(8);
    p.packString("block_size").packInt(2);
    p.packString("lora_name").packString("adapter");
    p.packString("extra_keys").packArrayHeader(1).packArrayHeader(2);
    p.packString("adapter").packArrayHeader(2).packString("mm-id").packInt(0);
    p.packString("locality").packString("LOCAL");
    p.packString("session_id").packMapHeader(1).packString("nested").packInt(1);
    p.packMapHeader(2).packString("type").packString("BlockEvicted").packString("x").packInt(1);
    p.packMapHeader(3).packString("block_hashes").packArrayHeader(1).packLong(-5);
    p.packString("type").packString("BlockRemoved").packString("ownership").packString("kvcr");
    p.packString("data_parallel_rank").packInt(0);

    VllmEventBatch batch = decoder.decodeBatch(p.toByteArray());
    assertThat(batch.events()).hasSize(2);
    assertThat(batch.skippedUnknown()).isEqualTo(1);
    var stored = (VllmKvEvent.BlockStored) batch.events().get(0);
    assertThat(stored.blockHashes()).containsExactly(-5L);
    assertThat(stored.loraName()).isEqualTo("adapter");
    assertThat(stored.extraKeys().get(0))
        .containsExactly(
            new ExtraKey("adapter", OptionalInt.empty()), new ExtraKey("mm-id", OptionalInt.of(0)));
    assertThat(batch.events().get(1)).isInstanceOf(VllmKvEvent.BlockRemoved.class);
  }

  @Test
  void keepsUnsigned64BitHashesAndBytesHashes() throws Exception {
    BigInteger max = new BigInteger("18446744073709551615"); // 2^64-1, msgpack uint64
    BigInteger big = new BigInteger("9223372036854775808"); // 2^63
    byte[] sha = new byte[32];
    for (int i = 0; i < 32; i++) {
      sha[i] = (byte) i;
    }
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    p.packArrayHeader(2).packDouble(0).packArrayHeader(1);
    p.packArrayHeader(5).packString("BlockStored").packArrayHeader(3);
    p.packBigInteger(max).packBigInteger(big).packBinaryHeader(32).writePayload(sha);
    p.packBinaryHeader(16).writePayload(new byte[16]); // parent as 16-byte xxh3-128 digest
    p.packArrayHeader(0).packInt(16);

    var stored = (VllmKvEvent.BlockStored) decoder.decodeBatch(p.toByteArray()).events().get(0);
    assertThat(Long.toUnsignedString(stored.blockHashes()[0])).isEqualTo(max.toString());
    assertThat(Long.toUnsignedString(stored.blockHashes()[1])).isEqualTo(big.toString());
    assertThat(stored.blockHashes()[2]).isEqualTo(0x18191a1b1c1d1e1fL);
    assertThat(stored.parentHash()).isZero();
  }

  @Test
  void eagleBigramsBecomeFirstElementsPlusFinalSecond() throws Exception {
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    p.packArrayHeader(2).packDouble(0).packArrayHeader(1);
    p.packArrayHeader(5).packString("BlockStored").packArrayHeader(1).packLong(1).packNil();
    p.packArrayHeader(3);
    p.packArrayHeader(2).packInt(1).packInt(2);
    p.packArrayHeader(2).packInt(2).packInt(3);
    p.packArrayHeader(2).packInt(3).packInt(4);
    p.packInt(3);
    var stored = (VllmKvEvent.BlockStored) decoder.decodeBatch(p.toByteArray()).events().get(0);
    assertThat(stored.tokenIds()).containsExactly(1, 2, 3, 4);
    assertThat(stored.eagle()).isTrue();
  }

  @Test
  void oldDynamoBlockMmInfosAtGroupPositionIsNotAGroup() throws Exception {
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    p.packArrayHeader(2).packDouble(0).packArrayHeader(1);
    p.packArrayHeader(10).packString("BlockStored").packArrayHeader(1).packLong(1).packNil();
    p.packArrayHeader(2).packInt(1).packInt(2).packInt(2).packNil().packNil().packNil().packNil();
    p.packArrayHeader(1).packMapHeader(1).packString("mm_objects").packArrayHeader(0);
    var stored = (VllmKvEvent.BlockStored) decoder.decodeBatch(p.toByteArray()).events().get(0);
    assertThat(stored.groupIdx()).isNull();
  }

  @Test
  void malformedPayloadsGiveCheckedErrors() throws IOException {
    assertThatThrownBy(() -> decoder.decodeBatch(new byte[0]))
        .isInstanceOf(EventDecodeException.class);
    assertThatThrownBy(() -> decoder.decodeBatch(new byte[] {(byte) 0x93, 0x01}))
        .isInstanceOf(EventDecodeException.class);
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    p.packString("not a batch");
    assertThatThrownBy(() -> decoder.decodeBatch(p.toByteArray()))
        .isInstanceOf(EventDecodeException.class)
        .hasMessageContaining("array or a map");
    MessageBufferPacker q = MessagePack.newDefaultBufferPacker();
    q.packArrayHeader(2).packDouble(0).packArrayHeader(1);
    q.packArrayHeader(5).packString("BlockStored").packString("oops").packNil();
    q.packArrayHeader(0).packInt(1);
    assertThatThrownBy(() -> decoder.decodeBatch(q.toByteArray()))
        .isInstanceOf(EventDecodeException.class)
        .hasMessageContaining("block_hashes");
    MessageBufferPacker r = MessagePack.newDefaultBufferPacker();
    r.packMapHeader(1).packString("events").packArrayHeader(1).packMapHeader(1);
    r.packString("block_size").packInt(1);
    assertThatThrownBy(() -> decoder.decodeBatch(r.toByteArray()))
        .isInstanceOf(EventDecodeException.class)
        .hasMessageContaining("no 'type'");
  }

  @Test
  void parsesFramesAndSequences() throws Exception {
    byte[] seq = VllmKvMessage.sequenceFrame(0x0102030405060708L);
    assertThat(seq).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
    VllmKvMessage m =
        VllmKvMessage.fromFrames(List.of("kv@1.2.3.4:5557@m".getBytes(), seq, new byte[] {1}));
    assertThat(m.sequence()).isEqualTo(0x0102030405060708L);
    assertThat(m.topic()).isEqualTo("kv@1.2.3.4:5557@m");
    assertThat(m.publisherId()).isNull();
    byte[] wide = new byte[24];
    wide[7] = 5;
    wide[23] = 9;
    VllmKvMessage w = VllmKvMessage.fromFrames(List.of(new byte[0], wide, new byte[] {1}));
    assertThat(w.sequence()).isEqualTo(5);
    assertThat(w.publisherId()).hasSize(16);
    assertThat(VllmKvMessage.parseSequence(VllmKvMessage.sequenceFrame(-1))).isEqualTo(-1);
    assertThatThrownBy(() -> VllmKvMessage.fromFrames(List.of(new byte[0], new byte[3])))
        .isInstanceOf(EventDecodeException.class);
    assertThatThrownBy(
            () -> VllmKvMessage.fromFrames(List.of(new byte[0], new byte[3], new byte[1])))
        .isInstanceOf(EventDecodeException.class);
  }
}
