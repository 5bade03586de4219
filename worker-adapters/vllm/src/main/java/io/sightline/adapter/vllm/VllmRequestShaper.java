package io.sightline.adapter.vllm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Shapes an OpenAI chat request for a vLLM worker: every image content part gets Sightline's
 * mm_hash, in its forwardable 64-hex form, as the part's {@code uuid}.
 *
 * <p>Why: vLLM (≥ 0.10.2/0.11) accepts a caller-supplied identifier per media item — {@code
 * {"type":"image_url","image_url":{"url":…},"uuid":"<id>"}} — and uses it instead of its own
 * content hash as the item's identity, which then appears in the {@code extra_keys} of the KV
 * events. Sending our mm_hash there makes the engine's cache keys and our index agree on image
 * identity (verified in vLLM's {@code vllm/entrypoints/chat_utils.py}: {@code
 * _parse_chat_message_content_part} reads {@code part.get("uuid")} and passes it to {@code
 * parse_image}; a part with a uuid is parsed by the "direct URL" branch, which accepts {@code
 * image_url} as a string or {@code {"url": …}}).
 *
 * <p>Image parts are {@code image_url} and {@code input_image} parts, and type-less parts carrying
 * an {@code image_url}, in message order — the same order the gateway resolved them. If the number
 * of image parts differs from the number of hashes, nothing is tagged (a partial tagging would bind
 * identities to the wrong images), as Dynamo drops mm_hash forwarding for the whole request when
 * any image fails. The input is never modified.
 */
public final class VllmRequestShaper {

  /** The shaped body and how many image parts were tagged. */
  public record Shaped(ObjectNode body, int taggedImages, List<String> warnings) {}

  public Shaped shape(ObjectNode request, List<String> forwardMmHashes) {
    ObjectNode body = request.deepCopy();
    List<ObjectNode> parts = imageParts(body);
    List<String> warnings = new ArrayList<>();
    List<String> hashes = forwardMmHashes == null ? List.of() : forwardMmHashes;
    if (parts.isEmpty()) {
      return new Shaped(body, 0, warnings);
    }
    if (parts.size() != hashes.size()) {
      warnings.add(
          "request has "
              + parts.size()
              + " image part(s) but "
              + hashes.size()
              + " mm_hash(es): uuids not forwarded");
      return new Shaped(body, 0, warnings);
    }
    for (int i = 0; i < parts.size(); i++) {
      String h = hashes.get(i);
      if (h == null || h.isEmpty()) {
        warnings.add("empty mm_hash for image " + i + ": uuids not forwarded");
        return new Shaped(request.deepCopy(), 0, warnings);
      }
      parts.get(i).put("uuid", h);
    }
    return new Shaped(body, parts.size(), warnings);
  }

  /** The image content parts of a chat body, in order. */
  static List<ObjectNode> imageParts(ObjectNode body) {
    List<ObjectNode> out = new ArrayList<>();
    JsonNode messages = body.get("messages");
    if (messages == null || !messages.isArray()) {
      return out;
    }
    for (JsonNode m : messages) {
      JsonNode content = m.get("content");
      if (content == null || !content.isArray()) {
        continue;
      }
      for (JsonNode part : content) {
        if (!(part instanceof ObjectNode p)) {
          continue;
        }
        String type = p.path("type").asText(null);
        boolean image =
            "image_url".equals(type)
                || "input_image".equals(type)
                || (type == null && p.has("image_url"));
        if (image) {
          out.add(p);
        }
      }
    }
    return out;
  }
}
