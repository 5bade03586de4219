package io.sightline.routing.prompt;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rewrites an OpenAI chat request the way vLLM does before it renders the chat template, so the
 * template sees exactly what the engine's template sees.
 *
 * <p>Behaviour copied (not code) from vLLM {@code vllm/entrypoints/chat_utils.py} @ 001eadcf
 * ({@code _parse_chat_message_content}, {@code _parse_chat_message_content_part}, {@code
 * _postprocess_messages}) with the "openai" content format, which vLLM auto-detects for every
 * template that iterates over {@code message['content']} (all Qwen-VL and LLaVA templates; see
 * ../shared/reference/tokenizers.md §5):
 *
 * <ul>
 *   <li>{@code content: null} → {@code []}; a string → {@code [{"type":"text","text":s}]};
 *   <li>text-like parts ({@code text input_text output_text refusal thinking}) → {@code
 *       {"type":"text","text":…}} (parts whose text is null are dropped); {@code image_url}, {@code
 *       input_image}, {@code image_embeds}, {@code image_pil} → {@code {"type":"image"}}; audio and
 *       video parts → {@code {"type":"audio"}} / {@code {"type":"video"}};
 *   <li>assistant {@code tool_calls} kept (empty lists dropped) with each {@code
 *       function.arguments} JSON string parsed into an object ({@code {}} when it is not valid
 *       JSON); {@code reasoning} copied to {@code reasoning} and {@code reasoning_content};
 *   <li>tool messages keep {@code tool_call_id}; an all-text content list becomes the texts joined
 *       by {@code "\n"};
 *   <li>{@code name} (strings only) is kept;
 *   <li>tools become what pydantic's {@code model_dump()} of vLLM's {@code
 *       ChatCompletionToolsParam} gives: {@code type} (default "function"), {@code function} with
 *       {@code name}, {@code description} and {@code parameters} (null when absent) first, then any
 *       extra keys in request order ({@code OpenAIBaseModel} allows extras).
 * </ul>
 *
 * <p>The output is plain Java collections (insertion-ordered maps), which is what {@link
 * ChatTemplate} implementations take. Thread-safe and stateless.
 */
public final class ChatRequestNormalizer {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> TEXT_PARTS =
      Set.of("text", "input_text", "output_text", "refusal", "thinking");
  private static final Set<String> IMAGE_PARTS =
      Set.of("image_url", "input_image", "image_embeds", "image_pil");
  private static final Set<String> AUDIO_PARTS = Set.of("audio_url", "input_audio", "audio_embeds");
  private static final Set<String> VIDEO_PARTS = Set.of("video_url");

  /** The normalised conversation, the normalised tools (null when none) and the image count. */
  public record Normalized(List<Object> messages, List<Object> tools, int numImages) {}

  /**
   * Normalises {@code request.messages} and {@code request.tools}.
   *
   * @throws PromptEncodingException {@code INVALID_REQUEST} for a structurally invalid request
   */
  public Normalized normalize(JsonNode request) throws PromptEncodingException {
    if (request == null || !request.isObject()) {
      throw invalid("request body must be a JSON object");
    }
    JsonNode messages = request.get("messages");
    if (messages == null || !messages.isArray()) {
      throw invalid("'messages' must be an array");
    }
    if (messages.isEmpty()) {
      throw invalid("'messages' must not be empty");
    }
    List<Object> out = new ArrayList<>(messages.size());
    int[] images = {0};
    int index = 0;
    for (JsonNode message : messages) {
      out.add(normalizeMessage(message, index++, images));
    }
    return new Normalized(out, normalizeTools(request), images[0]);
  }

  private Map<String, Object> normalizeMessage(JsonNode message, int index, int[] images)
      throws PromptEncodingException {
    if (!message.isObject()) {
      throw invalid("messages[" + index + "] must be an object");
    }
    JsonNode roleNode = message.get("role");
    if (roleNode == null || !roleNode.isTextual()) {
      throw invalid("messages[" + index + "].role must be a string");
    }
    String role = roleNode.asText();
    List<Object> parts = normalizeContent(message.get("content"), index, images);

    Map<String, Object> result = new LinkedHashMap<>();
    result.put("role", role);
    result.put("content", parts);

    if (role.equals("assistant")) {
      JsonNode toolCalls = message.get("tool_calls");
      if (toolCalls != null && !toolCalls.isNull()) {
        if (!toolCalls.isArray()) {
          throw invalid("messages[" + index + "].tool_calls must be an array");
        }
        if (!toolCalls.isEmpty()) {
          result.put("tool_calls", normalizeToolCalls(toolCalls, index));
        }
      }
      JsonNode reasoning = message.get("reasoning");
      if (reasoning != null && !reasoning.isNull()) {
        result.put("reasoning", reasoning.asText());
        result.put("reasoning_content", reasoning.asText());
      }
    } else if (role.equals("tool")) {
      JsonNode toolCallId = message.get("tool_call_id");
      if (toolCallId != null) {
        result.put("tool_call_id", toJava(toolCallId));
      }
      boolean allText = true;
      for (Object part : parts) {
        if (!"text".equals(((Map<?, ?>) part).get("type"))) {
          allText = false;
          break;
        }
      }
      if (allText) {
        List<String> texts = new ArrayList<>();
        for (Object part : parts) {
          texts.add((String) ((Map<?, ?>) part).get("text"));
        }
        result.put("content", String.join("\n", texts));
      }
    }
    JsonNode name = message.get("name");
    if (name != null && name.isTextual()) {
      result.put("name", name.asText());
    }
    JsonNode task = message.get("task");
    if (task != null && task.isTextual()) {
      result.put("task", task.asText());
    }
    if (role.equals("developer")) {
      JsonNode tools = message.get("tools");
      result.put("tools", tools == null ? null : toJava(tools));
    }
    return result;
  }

  private List<Object> normalizeContent(JsonNode content, int index, int[] images)
      throws PromptEncodingException {
    List<Object> parts = new ArrayList<>();
    if (content == null || content.isNull()) {
      return parts;
    }
    if (content.isTextual()) {
      parts.add(textPart(content.asText()));
      return parts;
    }
    if (!content.isArray()) {
      throw invalid("messages[" + index + "].content must be a string, an array or null");
    }
    int partIndex = 0;
    for (JsonNode part : content) {
      String where = "messages[" + index + "].content[" + partIndex++ + "]";
      if (part.isTextual()) {
        parts.add(textPart(part.asText()));
        continue;
      }
      if (!part.isObject()) {
        throw invalid(where + " must be an object or a string");
      }
      JsonNode typeNode = part.get("type");
      String type = typeNode != null && typeNode.isTextual() ? typeNode.asText() : null;
      if (type == null) {
        // vLLM accepts untyped parts that carry a media field directly.
        type = untypedPartType(part);
        if (type == null) {
          throw invalid(where + " is missing 'type'");
        }
      }
      if (TEXT_PARTS.contains(type)) {
        JsonNode text = part.get(type.equals("refusal") ? "refusal" : textField(type));
        if (text == null || text.isNull()) {
          continue; // vLLM skips text parts with no text
        }
        if (!text.isTextual()) {
          throw invalid(where + " text must be a string");
        }
        parts.add(textPart(text.asText()));
      } else if (IMAGE_PARTS.contains(type)) {
        images[0]++;
        parts.add(Map.of("type", "image"));
      } else if (AUDIO_PARTS.contains(type)) {
        parts.add(Map.of("type", "audio"));
      } else if (VIDEO_PARTS.contains(type)) {
        parts.add(Map.of("type", "video"));
      } else {
        throw invalid(where + " has unsupported type '" + type + "'");
      }
    }
    return parts;
  }

  private static String textField(String type) {
    return type.equals("thinking") ? "thinking" : "text";
  }

  private static String untypedPartType(JsonNode part) {
    for (String field : List.of("image_url", "image_pil", "image_embeds")) {
      if (part.has(field)) {
        return field;
      }
    }
    if (part.has("audio_url") || part.has("audio_embeds") || part.has("input_audio")) {
      return "audio_url";
    }
    if (part.has("video_url")) {
      return "video_url";
    }
    return null;
  }

  private List<Object> normalizeToolCalls(JsonNode toolCalls, int index)
      throws PromptEncodingException {
    List<Object> calls = new ArrayList<>();
    for (JsonNode call : toolCalls) {
      if (!call.isObject()) {
        throw invalid("messages[" + index + "].tool_calls entries must be objects");
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> converted = (Map<String, Object>) toJava(call);
      Object function = converted.get("function");
      if (!(function instanceof Map<?, ?>)) {
        throw invalid("messages[" + index + "].tool_calls[].function must be an object");
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> fn = (Map<String, Object>) function;
      Object arguments = fn.get("arguments");
      if (arguments instanceof String s) {
        fn.put("arguments", parseArguments(s));
      } else if (!(arguments instanceof Map<?, ?>) && !(arguments instanceof List<?>)) {
        fn.put("arguments", new LinkedHashMap<String, Object>());
      }
      calls.add(converted);
    }
    return calls;
  }

  /** json.loads semantics: anything that is not valid JSON becomes {} (as vLLM does). */
  private static Object parseArguments(String s) {
    try {
      JsonNode parsed = JSON.readTree(s);
      if (parsed == null || parsed.isMissingNode()) {
        return new LinkedHashMap<String, Object>();
      }
      return toJava(parsed);
    } catch (JsonProcessingException e) {
      return new LinkedHashMap<String, Object>();
    }
  }

  private List<Object> normalizeTools(JsonNode request) throws PromptEncodingException {
    JsonNode tools = request.get("tools");
    if (tools == null || tools.isNull()) {
      return null;
    }
    if (!tools.isArray()) {
      throw invalid("'tools' must be an array");
    }
    // tool_choice "none" does not remove the tools: vLLM only does that with the non-default
    // --exclude-tools-when-tool-choice-none flag.
    List<Object> out = new ArrayList<>();
    int i = 0;
    for (JsonNode tool : tools) {
      String where = "tools[" + i++ + "]";
      if (!tool.isObject()) {
        throw invalid(where + " must be an object");
      }
      JsonNode function = tool.get("function");
      if (function == null || !function.isObject()) {
        throw invalid(where + ".function must be an object");
      }
      JsonNode name = function.get("name");
      if (name == null || !name.isTextual()) {
        throw invalid(where + ".function.name must be a string");
      }
      Map<String, Object> fn = new LinkedHashMap<>();
      fn.put("name", name.asText());
      fn.put("description", toJava(function.get("description")));
      fn.put("parameters", toJava(function.get("parameters")));
      copyExtras(function, fn);
      Map<String, Object> t = new LinkedHashMap<>();
      JsonNode type = tool.get("type");
      t.put("type", type == null || type.isNull() ? "function" : toJava(type));
      t.put("function", fn);
      copyExtras(tool, t);
      out.add(t);
    }
    return out;
  }

  private static void copyExtras(JsonNode from, Map<String, Object> to) {
    Iterator<Map.Entry<String, JsonNode>> fields = from.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> e = fields.next();
      if (!to.containsKey(e.getKey())) {
        to.put(e.getKey(), toJava(e.getValue()));
      }
    }
  }

  private static Map<String, Object> textPart(String text) {
    Map<String, Object> part = new LinkedHashMap<>();
    part.put("type", "text");
    part.put("text", text);
    return part;
  }

  /**
   * Converts a JSON tree to plain Java values: insertion-ordered maps, lists, String, Long (or
   * BigInteger), Double, Boolean, null.
   */
  public static Object toJava(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    JsonNodeType type = node.getNodeType();
    switch (type) {
      case OBJECT -> {
        Map<String, Object> map = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
          Map.Entry<String, JsonNode> e = fields.next();
          map.put(e.getKey(), toJava(e.getValue()));
        }
        return map;
      }
      case ARRAY -> {
        List<Object> list = new ArrayList<>(node.size());
        for (JsonNode child : node) {
          list.add(toJava(child));
        }
        return list;
      }
      case STRING -> {
        return node.asText();
      }
      case BOOLEAN -> {
        return node.booleanValue();
      }
      case NUMBER -> {
        if (node.isIntegralNumber()) {
          BigInteger big = node.bigIntegerValue();
          return big.bitLength() < 64 ? (Object) big.longValue() : big;
        }
        return node.doubleValue();
      }
      default -> {
        return node.asText();
      }
    }
  }

  private static PromptEncodingException invalid(String message) {
    return new PromptEncodingException(PromptEncodingException.Kind.INVALID_REQUEST, message);
  }
}
