package io.sightline.adapter.trtllm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes the JSON list returned by TensorRT-LLM's {@code POST /kv_cache_events} into {@link
 * TrtKvEvent}s. Unknown members are ignored and unknown event types become {@link
 * TrtKvEvent.Unknown}; structural errors (not a list, an event without {@code event_id} or {@code
 * data}, a hash that is neither a number nor a hex string) raise {@link TrtDecodeException}.
 * Thread-safe.
 */
public final class TrtKvEventDecoder {

  private final ObjectMapper mapper;

  public TrtKvEventDecoder() {
    this(new ObjectMapper());
  }

  public TrtKvEventDecoder(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** Decodes a response body. */
  public List<TrtKvEvent> decode(byte[] body) throws TrtDecodeException {
    JsonNode root;
    try {
      root = mapper.readTree(body);
    } catch (JsonProcessingException e) {
      throw new TrtDecodeException("kv_cache_events is not JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new TrtDecodeException("kv_cache_events unreadable: " + e.getMessage(), e);
    }
    return decode(root);
  }

  /** Decodes an already parsed response. */
  public List<TrtKvEvent> decode(JsonNode root) throws TrtDecodeException {
    if (root == null || root.isNull() || root.isMissingNode()) {
      return List.of();
    }
    if (!root.isArray()) {
      throw new TrtDecodeException(
          "kv_cache_events must be a JSON list, got " + root.getNodeType());
    }
    List<TrtKvEvent> out = new ArrayList<>(root.size());
    int i = 0;
    for (JsonNode e : root) {
      out.add(event(e, i++));
    }
    return out;
  }

  private TrtKvEvent event(JsonNode e, int index) throws TrtDecodeException {
    if (!e.isObject()) {
      throw new TrtDecodeException("event #" + index + " is not an object");
    }
    JsonNode id = e.get("event_id");
    if (id == null || !id.isIntegralNumber()) {
      throw new TrtDecodeException("event #" + index + " has no integral event_id");
    }
    JsonNode data = e.get("data");
    if (data == null || !data.isObject()) {
      throw new TrtDecodeException("event #" + index + " has no data object");
    }
    int window = intOr(e.get("window_size"), 0);
    int rank = intOr(e.get("attention_dp_rank"), 0);
    String type = data.path("type").asText("");
    TrtKvEvent.Data d =
        switch (type) {
          case "created" -> new TrtKvEvent.Created(ints(data.get("num_blocks_per_cache_level")));
          case "stored" -> stored(data, index);
          case "removed" -> new TrtKvEvent.Removed(hashes(data.get("block_hashes"), index));
          case "updated" -> updated(data, index);
          default -> new TrtKvEvent.Unknown(type);
        };
    return new TrtKvEvent(id.longValue(), window, rank, d);
  }

  private TrtKvEvent.Stored stored(JsonNode data, int index) throws TrtDecodeException {
    JsonNode parentNode = data.get("parent_hash");
    Long parent =
        parentNode == null || parentNode.isNull() ? null : hash(parentNode, index, "parent_hash");
    JsonNode blocksNode = data.get("blocks");
    if (blocksNode == null || !blocksNode.isArray()) {
      throw new TrtDecodeException("stored event #" + index + " has no blocks list");
    }
    List<TrtKvEvent.Block> blocks = new ArrayList<>(blocksNode.size());
    for (JsonNode b : blocksNode) {
      long h = hash(b.get("block_hash"), index, "block_hash");
      JsonNode tokensNode = b.path("tokens");
      int[] tokens = new int[tokensNode.size()];
      boolean digest = false;
      int n = 0;
      for (JsonNode t : tokensNode) {
        JsonNode tid = t.isObject() ? t.get("token_id") : t;
        if (tid != null && tid.isIntegralNumber()) {
          tokens[n++] = (int) tid.longValue(); // u32 token ids keep their bit pattern
        } else if (tid != null && tid.isTextual()) {
          digest = true; // V2: an MM item's first token is its 64-hex digest
          tokens[n++] = 0;
        } else {
          throw new TrtDecodeException("stored event #" + index + " has a token without token_id");
        }
      }
      List<TrtKvEvent.MmKey> mm = new ArrayList<>();
      for (JsonNode k : b.path("mm_keys")) {
        JsonNode hashNode = k.get("hash");
        String hash = hashNode == null || hashNode.isNull() ? null : hashNode.asText();
        String uuid = k.hasNonNull("uuid") ? k.get("uuid").asText() : null;
        if ((hash == null || hash.isEmpty()) && uuid == null) {
          continue;
        }
        mm.add(new TrtKvEvent.MmKey(hash, intOr(k.get("start_offset"), 0), uuid));
      }
      String salt = b.hasNonNull("cache_salt") ? b.get("cache_salt").asText() : null;
      blocks.add(
          new TrtKvEvent.Block(
              h, tokens, intOr(b.get("cache_level"), 0), List.copyOf(mm), salt, digest));
    }
    return new TrtKvEvent.Stored(parent, List.copyOf(blocks));
  }

  private TrtKvEvent.Updated updated(JsonNode data, int index) throws TrtDecodeException {
    long h = hash(data.get("block_hash"), index, "block_hash");
    JsonNode level = data.path("cache_level");
    Integer newLevel = null;
    if (level.isObject() && level.get("new_value") != null && level.get("new_value").isInt()) {
      newLevel = level.get("new_value").intValue();
    } else if (level.isInt()) {
      newLevel = level.intValue();
    }
    return new TrtKvEvent.Updated(h, newLevel);
  }

  private static long[] hashes(JsonNode node, int index) throws TrtDecodeException {
    if (node == null || !node.isArray()) {
      throw new TrtDecodeException("removed event #" + index + " has no block_hashes list");
    }
    long[] out = new long[node.size()];
    int i = 0;
    for (JsonNode h : node) {
      out[i++] = hash(h, index, "block_hashes");
    }
    return out;
  }

  /** u64 JSON number (bit pattern kept), or a V2 hex string (first 16 hex digits). */
  static long hash(JsonNode node, int index, String what) throws TrtDecodeException {
    if (node == null || node.isNull()) {
      throw new TrtDecodeException("event #" + index + " has no " + what);
    }
    if (node.isIntegralNumber()) {
      return node.isBigInteger() ? node.bigIntegerValue().longValue() : node.longValue();
    }
    if (node.isTextual()) {
      String s = node.asText();
      String hex = s.startsWith("0x") ? s.substring(2) : s;
      if (!hex.isEmpty() && hex.length() <= 64 && hex.chars().allMatch(TrtKvEventDecoder::isHex)) {
        return Long.parseUnsignedLong(hex.substring(0, Math.min(16, hex.length())), 16);
      }
    }
    throw new TrtDecodeException("event #" + index + ": bad " + what + " " + node);
  }

  private static boolean isHex(int c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private static int intOr(JsonNode n, int dflt) {
    return n != null && n.isIntegralNumber() ? n.intValue() : dflt;
  }

  private static int[] ints(JsonNode n) {
    if (n == null || !n.isArray()) {
      return new int[0];
    }
    int[] out = new int[n.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = n.get(i).asInt();
    }
    return out;
  }
}
