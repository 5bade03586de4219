package io.sightline.adapter.vllm;

import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Decodes the msgpack payload of a vLLM KV-event message ({@code KVEventBatch}) into {@link
 * VllmEventBatch}.
 *
 * <p>Both encodings vLLM has shipped are accepted, because the format churned and broke other
 * decoders ({@code ../shared/reference/llmd.md} §8 item 2):
 *
 * <ul>
 *   <li>positional ({@code msgspec array_like}): batch {@code [ts, events, dp_rank]}, events as
 *       tagged arrays {@code ["BlockStored", block_hashes, parent, token_ids, block_size, lora_id,
 *       medium, lora_name, extra_keys, group_idx, kv_cache_spec_kind, …]};
 *   <li>named: batch and events as maps, events tagged by a {@code "type"} key.
 * </ul>
 *
 * Trailing optional fields may be absent, and unknown fields, unknown trailing elements and unknown
 * event types are ignored. Block hashes are {@code ExternalBlockHash = bytes | int}: integers may
 * exceed {@code int64} (msgpack uint64) and are kept as their unsigned 64-bit pattern; byte strings
 * use their last 8 bytes, big-endian (vLLM {@code VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=0}). Eagle
 * bigram token lists {@code [(a, b), …]} become every {@code a} followed by the final {@code b}.
 *
 * <p>The decoder is stateless and thread-safe; all failures surface as {@link
 * EventDecodeException}.
 */
public final class VllmEventDecoder {

  /** Positional index of {@code group_idx} in a {@code BlockStored} array (tag at 0). */
  private static final int STORED_GROUP_IDX = 9;

  public VllmEventDecoder() {}

  /** Decodes one batch payload (the third ZMQ frame). */
  public VllmEventBatch decodeBatch(byte[] payload) throws EventDecodeException {
    if (payload == null || payload.length == 0) {
      throw new EventDecodeException("empty event batch payload");
    }
    try (MessageUnpacker in = MessagePack.newDefaultUnpacker(payload)) {
      return readBatch(in);
    } catch (EventDecodeException e) {
      throw e;
    } catch (IOException | MessagePackException | ArithmeticException e) {
      throw new EventDecodeException("malformed msgpack event batch: " + e.getMessage(), e);
    }
  }

  private VllmEventBatch readBatch(MessageUnpacker in) throws IOException, EventDecodeException {
    ValueType type = nextType(in);
    if (type == ValueType.ARRAY) {
      int n = in.unpackArrayHeader();
      if (n < 2) {
        throw new EventDecodeException("event batch array has " + n + " elements, expected >= 2");
      }
      double ts = readNumber(in, "ts");
      EventsAccumulator events = readEvents(in);
      Integer rank = null;
      if (n >= 3) {
        rank = readOptionalInt(in);
      }
      skip(in, n - 3);
      return new VllmEventBatch(ts, events.events, rank, events.skipped);
    }
    if (type == ValueType.MAP) {
      int n = in.unpackMapHeader();
      double ts = 0;
      EventsAccumulator events = null;
      Integer rank = null;
      for (int i = 0; i < n; i++) {
        String key = readKey(in);
        switch (key) {
          case "ts" -> ts = readNumber(in, "ts");
          case "events" -> events = readEvents(in);
          case "data_parallel_rank" -> rank = readOptionalInt(in);
          default -> in.skipValue();
        }
      }
      if (events == null) {
        throw new EventDecodeException("event batch map has no 'events'");
      }
      return new VllmEventBatch(ts, events.events, rank, events.skipped);
    }
    throw new EventDecodeException("event batch must be an array or a map, got " + type);
  }

  private static final class EventsAccumulator {
    final List<VllmKvEvent> events = new ArrayList<>();
    int skipped;
  }

  private EventsAccumulator readEvents(MessageUnpacker in)
      throws IOException, EventDecodeException {
    if (nextType(in) != ValueType.ARRAY) {
      throw new EventDecodeException("'events' must be an array, got " + nextType(in));
    }
    int n = in.unpackArrayHeader();
    EventsAccumulator acc = new EventsAccumulator();
    for (int i = 0; i < n; i++) {
      VllmKvEvent event = readEvent(in, i);
      if (event == null) {
        acc.skipped++;
      } else {
        acc.events.add(event);
      }
    }
    return acc;
  }

  /** Returns null for an event of an unknown type (already consumed). */
  private VllmKvEvent readEvent(MessageUnpacker in, int index)
      throws IOException, EventDecodeException {
    ValueType type = nextType(in);
    if (type == ValueType.ARRAY) {
      return readPositionalEvent(in, index);
    }
    if (type == ValueType.MAP) {
      return readNamedEvent(in, index);
    }
    throw new EventDecodeException("event #" + index + " must be an array or a map, got " + type);
  }

  private VllmKvEvent readPositionalEvent(MessageUnpacker in, int index)
      throws IOException, EventDecodeException {
    int n = in.unpackArrayHeader();
    if (n == 0 || nextType(in) != ValueType.STRING) {
      throw new EventDecodeException("event #" + index + " array has no type tag");
    }
    String tag = in.unpackString();
    int read = 1;
    switch (tag) {
      case "BlockStored" -> {
        if (n < 5) {
          throw new EventDecodeException(
              "BlockStored #" + index + " has " + n + " fields, expected >= 5");
        }
        long[] hashes = readHashes(in, "block_hashes");
        Long parent = readOptionalHash(in);
        TokenIds tokens = readTokens(in);
        int blockSize = readInt(in, "block_size");
        read = 5;
        String medium = null;
        String loraName = null;
        List<List<ExtraKey>> extra = List.of();
        Integer groupIdx = null;
        String specKind = null;
        if (n > 5) {
          in.skipValue(); // lora_id: legacy, ignored (lora_name is the key that matters)
          read++;
        }
        if (n > 6) {
          medium = readOptionalString(in);
          read++;
        }
        if (n > 7) {
          loraName = readOptionalString(in);
          read++;
        }
        if (n > 8) {
          extra = readExtraKeys(in);
          read++;
        }
        if (n > STORED_GROUP_IDX) {
          // Old Dynamo producers put block_mm_infos at this position: only an int is a group.
          groupIdx = nextType(in) == ValueType.INTEGER ? readInt(in, "group_idx") : skipNull(in);
          read++;
        }
        if (n > 10) {
          specKind = nextType(in) == ValueType.STRING ? in.unpackString() : skipNull(in);
          read++;
        }
        skip(in, n - read);
        return new VllmKvEvent.BlockStored(
            hashes,
            parent,
            tokens.ids,
            blockSize,
            medium,
            loraName,
            extra,
            groupIdx,
            specKind,
            tokens.eagle,
            null);
      }
      case "BlockRemoved" -> {
        if (n < 2) {
          throw new EventDecodeException("BlockRemoved #" + index + " has no block_hashes");
        }
        long[] hashes = readHashes(in, "block_hashes");
        read = 2;
        String medium = null;
        Integer groupIdx = null;
        if (n > 2) {
          medium = readOptionalString(in);
          read++;
        }
        if (n > 3) {
          groupIdx = nextType(in) == ValueType.INTEGER ? readInt(in, "group_idx") : skipNull(in);
          read++;
        }
        skip(in, n - read);
        return new VllmKvEvent.BlockRemoved(hashes, medium, groupIdx);
      }
      case "AllBlocksCleared" -> {
        skip(in, n - 1);
        return new VllmKvEvent.AllBlocksCleared();
      }
      default -> {
        skip(in, n - 1);
        return null;
      }
    }
  }

  private VllmKvEvent readNamedEvent(MessageUnpacker in, int index)
      throws IOException, EventDecodeException {
    int n = in.unpackMapHeader();
    String tag = null;
    long[] hashes = null;
    Long parent = null;
    TokenIds tokens = null;
    Integer blockSize = null;
    String medium = null;
    String loraName = null;
    List<List<ExtraKey>> extra = List.of();
    Integer groupIdx = null;
    String specKind = null;
    boolean eagleFlag = false;
    String cacheSalt = null;
    for (int i = 0; i < n; i++) {
      String key = readKey(in);
      switch (key) {
        case "type" -> tag = readOptionalString(in);
        case "block_hashes" -> hashes = readHashes(in, key);
        case "parent_block_hash" -> parent = readOptionalHash(in);
        case "token_ids" -> tokens = readTokens(in);
        case "block_size" -> blockSize = readOptionalInt(in);
        case "medium" -> medium = readOptionalString(in);
        case "lora_name" -> loraName = readOptionalString(in);
        case "extra_keys" -> extra = readExtraKeys(in);
        case "group_idx" ->
            groupIdx = nextType(in) == ValueType.INTEGER ? readInt(in, key) : skipNull(in);
        case "kv_cache_spec_kind" ->
            specKind = nextType(in) == ValueType.STRING ? in.unpackString() : skipNull(in);
        case "cache_salt" ->
            cacheSalt = nextType(in) == ValueType.STRING ? in.unpackString() : skipNull(in);
        case "is_eagle" -> {
          if (nextType(in) == ValueType.BOOLEAN) {
            eagleFlag = in.unpackBoolean();
          } else {
            in.skipValue();
          }
        }
        default -> in.skipValue();
      }
    }
    if (tag == null) {
      throw new EventDecodeException("event #" + index + " map has no 'type'");
    }
    switch (tag) {
      case "BlockStored" -> {
        if (hashes == null) {
          throw new EventDecodeException("BlockStored #" + index + " has no block_hashes");
        }
        if (blockSize == null) {
          throw new EventDecodeException("BlockStored #" + index + " has no block_size");
        }
        TokenIds t = tokens == null ? new TokenIds(new int[0], false) : tokens;
        return new VllmKvEvent.BlockStored(
            hashes,
            parent,
            t.ids,
            blockSize,
            medium,
            loraName,
            extra,
            groupIdx,
            specKind,
            t.eagle || eagleFlag,
            cacheSalt);
      }
      case "BlockRemoved" -> {
        if (hashes == null) {
          throw new EventDecodeException("BlockRemoved #" + index + " has no block_hashes");
        }
        return new VllmKvEvent.BlockRemoved(hashes, medium, groupIdx);
      }
      case "AllBlocksCleared" -> {
        return new VllmKvEvent.AllBlocksCleared();
      }
      default -> {
        return null;
      }
    }
  }

  private record TokenIds(int[] ids, boolean eagle) {}

  private TokenIds readTokens(MessageUnpacker in) throws IOException, EventDecodeException {
    if (in.tryUnpackNil()) {
      return new TokenIds(new int[0], false);
    }
    if (nextType(in) != ValueType.ARRAY) {
      throw new EventDecodeException("token_ids must be an array, got " + nextType(in));
    }
    int n = in.unpackArrayHeader();
    if (n == 0) {
      return new TokenIds(new int[0], false);
    }
    if (nextType(in) == ValueType.ARRAY) {
      // Eagle bigrams [(a, b), ...]: every a, then the final b.
      int[] ids = new int[n + 1];
      int last = 0;
      for (int i = 0; i < n; i++) {
        if (nextType(in) != ValueType.ARRAY) {
          throw new EventDecodeException("mixed bigram and plain token_ids");
        }
        int pair = in.unpackArrayHeader();
        if (pair < 2) {
          throw new EventDecodeException("token bigram has " + pair + " elements");
        }
        ids[i] = readInt(in, "token_id");
        last = readInt(in, "token_id");
        skip(in, pair - 2);
      }
      ids[n] = last;
      return new TokenIds(ids, true);
    }
    int[] ids = new int[n];
    for (int i = 0; i < n; i++) {
      ids[i] = readInt(in, "token_id");
    }
    return new TokenIds(ids, false);
  }

  private List<List<ExtraKey>> readExtraKeys(MessageUnpacker in)
      throws IOException, EventDecodeException {
    if (in.tryUnpackNil()) {
      return List.of();
    }
    if (nextType(in) != ValueType.ARRAY) {
      throw new EventDecodeException("extra_keys must be an array, got " + nextType(in));
    }
    int blocks = in.unpackArrayHeader();
    List<List<ExtraKey>> out = new ArrayList<>(blocks);
    for (int b = 0; b < blocks; b++) {
      if (in.tryUnpackNil()) {
        out.add(List.of());
        continue;
      }
      if (nextType(in) != ValueType.ARRAY) {
        in.skipValue();
        out.add(List.of());
        continue;
      }
      int items = in.unpackArrayHeader();
      List<ExtraKey> keys = new ArrayList<>(items);
      for (int i = 0; i < items; i++) {
        ExtraKey key = readExtraKey(in);
        if (key != null) {
          keys.add(key);
        }
      }
      out.add(List.copyOf(keys));
    }
    return out;
  }

  /**
   * A bare string or an {@code (identifier, offset)} tuple; anything else (prompt-embeds digests as
   * bytes, future typed keys) is skipped.
   */
  private ExtraKey readExtraKey(MessageUnpacker in) throws IOException, EventDecodeException {
    ValueType type = nextType(in);
    if (type == ValueType.STRING) {
      String s = in.unpackString();
      return s.isEmpty() ? null : ExtraKey.bare(s);
    }
    if (type == ValueType.ARRAY) {
      int n = in.unpackArrayHeader();
      if (n == 0) {
        return null;
      }
      if (nextType(in) != ValueType.STRING) {
        skip(in, n);
        return null;
      }
      String id = in.unpackString();
      OptionalInt offset = OptionalInt.empty();
      if (n > 1) {
        offset =
            nextType(in) == ValueType.INTEGER
                ? OptionalInt.of(readInt(in, "offset"))
                : skipEmpty(in);
      }
      skip(in, n - 2);
      return id.isEmpty() ? null : new ExtraKey(id, offset);
    }
    in.skipValue();
    return null;
  }

  private long[] readHashes(MessageUnpacker in, String what)
      throws IOException, EventDecodeException {
    if (nextType(in) != ValueType.ARRAY) {
      throw new EventDecodeException(what + " must be an array, got " + nextType(in));
    }
    int n = in.unpackArrayHeader();
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = readHash(in);
    }
    return out;
  }

  private Long readOptionalHash(MessageUnpacker in) throws IOException, EventDecodeException {
    if (in.tryUnpackNil()) {
      return null;
    }
    return readHash(in);
  }

  /** An engine hash as an unsigned 64-bit pattern: uint64/int64, or the last 8 bytes of bytes. */
  private long readHash(MessageUnpacker in) throws IOException, EventDecodeException {
    MessageFormat format = in.getNextFormat();
    ValueType type = format.getValueType();
    if (type == ValueType.INTEGER) {
      if (format == MessageFormat.UINT64) {
        BigInteger big = in.unpackBigInteger();
        return big.longValue();
      }
      return in.unpackLong();
    }
    if (type == ValueType.BINARY) {
      int len = in.unpackBinaryHeader();
      byte[] bytes = in.readPayload(len);
      return lastEightBigEndian(bytes);
    }
    throw new EventDecodeException("block hash must be an integer or bytes, got " + type);
  }

  static long lastEightBigEndian(byte[] bytes) {
    long v = 0;
    int from = Math.max(0, bytes.length - 8);
    for (int i = from; i < bytes.length; i++) {
      v = (v << 8) | (bytes[i] & 0xFF);
    }
    return v;
  }

  private static ValueType nextType(MessageUnpacker in) throws IOException, EventDecodeException {
    if (!in.hasNext()) {
      throw new EventDecodeException("truncated event batch");
    }
    return in.getNextFormat().getValueType();
  }

  private static String readKey(MessageUnpacker in) throws IOException, EventDecodeException {
    ValueType type = nextType(in);
    if (type != ValueType.STRING) {
      throw new EventDecodeException("map key must be a string, got " + type);
    }
    return in.unpackString();
  }

  private static double readNumber(MessageUnpacker in, String what)
      throws IOException, EventDecodeException {
    ValueType type = nextType(in);
    if (type == ValueType.FLOAT) {
      return in.unpackDouble();
    }
    if (type == ValueType.INTEGER) {
      return in.unpackLong();
    }
    if (type == ValueType.NIL) {
      in.unpackNil();
      return 0;
    }
    throw new EventDecodeException(what + " must be a number, got " + type);
  }

  private static int readInt(MessageUnpacker in, String what)
      throws IOException, EventDecodeException {
    ValueType type = nextType(in);
    if (type != ValueType.INTEGER) {
      throw new EventDecodeException(what + " must be an integer, got " + type);
    }
    long v = in.unpackLong();
    if (v < Integer.MIN_VALUE || v > 0xFFFF_FFFFL) {
      throw new EventDecodeException(what + " out of 32-bit range: " + v);
    }
    return (int) v; // token ids above 2^31 keep their u32 bit pattern
  }

  private static Integer readOptionalInt(MessageUnpacker in)
      throws IOException, EventDecodeException {
    if (in.tryUnpackNil()) {
      return null;
    }
    return readInt(in, "integer field");
  }

  private static String readOptionalString(MessageUnpacker in)
      throws IOException, EventDecodeException {
    if (in.tryUnpackNil()) {
      return null;
    }
    ValueType type = nextType(in);
    if (type != ValueType.STRING) {
      throw new EventDecodeException("expected a string, got " + type);
    }
    return in.unpackString();
  }

  private static <T> T skipNull(MessageUnpacker in) throws IOException {
    in.skipValue();
    return null;
  }

  private static OptionalInt skipEmpty(MessageUnpacker in) throws IOException {
    in.skipValue();
    return OptionalInt.empty();
  }

  private static void skip(MessageUnpacker in, int count) throws IOException, EventDecodeException {
    for (int i = 0; i < count; i++) {
      nextType(in);
      in.skipValue();
    }
  }
}
