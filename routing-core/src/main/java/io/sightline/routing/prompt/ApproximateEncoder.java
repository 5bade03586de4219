package io.sightline.routing.prompt;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The approximate encoder for models without tokenizer files, after llm-d's {@code estimate}
 * tokenizer backend (../shared/reference/llmd.md §4–5): the request's text is packed 4 UTF-8 bytes
 * per pseudo-token (little-endian u32, the last word zero-padded). Each image becomes one marker
 * pseudo-token at a 4-byte-aligned position, reported in {@link EncodedPrompt#imagePositions()};
 * the expansion stage turns it into {@link ImageTokenEstimator} many identity tokens, as it does
 * with a real placeholder.
 *
 * <p>The packed text is a fixed, template-free serialisation of the normalised conversation ({@code
 * <|role|>\n} + text parts), preceded by the tools as compact JSON. Only two properties matter for
 * routing and both hold: it is deterministic, and a conversation that extends another packs to a
 * sequence that extends the other's up to the last partial word – so multi-turn prefixes still
 * match. Pseudo-token counts are about a third of real BPE counts for English, so block counts are
 * not comparable with exact mode; a model is routed in one mode at a time.
 *
 * <p>Stateless and thread-safe.
 */
public final class ApproximateEncoder implements PromptEncoder {

  /**
   * The marker written at each image position: bytes {@code FF FF FF FF}, which never occur in
   * UTF-8 text, so no text word can equal it and {@code RoutingTokens.expand} may use it as the
   * placeholder id of approximate prompts.
   */
  public static final int IMAGE_MARKER = 0xFFFF_FFFF;

  private static final ObjectMapper JSON = new ObjectMapper();
  private final ChatRequestNormalizer normalizer = new ChatRequestNormalizer();

  @Override
  public boolean exact() {
    return false;
  }

  @Override
  public EncodedPrompt encodeChat(JsonNode request) throws PromptEncodingException {
    ChatRequestNormalizer.Normalized normalized = normalizer.normalize(request);
    Packer packer = new Packer();
    StringBuilder text = new StringBuilder();
    if (normalized.tools() != null) {
      try {
        String tools = JSON.writeValueAsString(normalized.tools());
        packer.append(tools + "\n");
        text.append(tools).append('\n');
      } catch (JsonProcessingException e) {
        throw new PromptEncodingException(
            PromptEncodingException.Kind.INVALID_REQUEST, "tools cannot be serialised", e);
      }
    }
    for (Object m : normalized.messages()) {
      Map<?, ?> message = (Map<?, ?>) m;
      String header = "<|" + message.get("role") + "|>\n";
      packer.append(header);
      text.append(header);
      Object content = message.get("content");
      if (content instanceof String s) {
        packer.append(s);
        text.append(s);
      } else {
        for (Object p : (List<?>) content) {
          Map<?, ?> part = (Map<?, ?>) p;
          if ("text".equals(part.get("type"))) {
            String t = (String) part.get("text");
            packer.append(t);
            text.append(t);
          } else if ("image".equals(part.get("type"))) {
            packer.image();
            text.append("<image>");
          }
        }
      }
      Object toolCalls = message.get("tool_calls");
      if (toolCalls != null) {
        try {
          String calls = JSON.writeValueAsString(toolCalls);
          packer.append(calls);
          text.append(calls);
        } catch (JsonProcessingException e) {
          throw new PromptEncodingException(
              PromptEncodingException.Kind.INVALID_REQUEST, "tool_calls cannot be serialised", e);
        }
      }
      packer.append("\n");
      text.append('\n');
    }
    return packer.finish(text.toString(), normalized.numImages());
  }

  @Override
  public EncodedPrompt encodeCompletion(JsonNode request) throws PromptEncodingException {
    CompletionPrompt prompt = CompletionPrompt.of(request);
    if (prompt.tokenIds() != null) {
      // Ids given by the caller are what the engine sees: exact even without a tokenizer.
      return new EncodedPrompt(
          "", prompt.tokenIds(), 0, new int[0], EncodedPrompt.Mode.EXACT, null);
    }
    Packer packer = new Packer();
    packer.append(prompt.text());
    return packer.finish(prompt.text(), 0);
  }

  /** Packs bytes into little-endian u32 words, with image markers on word boundaries. */
  private static final class Packer {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final java.util.ArrayList<Integer> imageWordIndexes = new java.util.ArrayList<>();

    void append(String s) {
      bytes.writeBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    void image() {
      while (bytes.size() % 4 != 0) {
        bytes.write(0);
      }
      imageWordIndexes.add(bytes.size() / 4);
      for (int i = 0; i < 4; i++) {
        bytes.write(0xFF);
      }
    }

    EncodedPrompt finish(String text, int numImages) {
      byte[] b = bytes.toByteArray();
      int[] ids = new int[(b.length + 3) / 4];
      for (int w = 0; w < ids.length; w++) {
        int v = 0;
        for (int k = 0; k < 4; k++) {
          int i = w * 4 + k;
          int by = i < b.length ? b[i] & 0xFF : 0;
          v |= by << (8 * k);
        }
        ids[w] = v;
      }
      int[] positions = imageWordIndexes.stream().mapToInt(Integer::intValue).toArray();
      return new EncodedPrompt(
          text, ids, numImages, positions, EncodedPrompt.Mode.APPROXIMATE, null);
    }
  }
}
