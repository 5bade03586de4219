package io.sightline.sim.prompt;

import com.fasterxml.jackson.databind.JsonNode;
import io.sightline.routing.multimodal.spec.ImageTokenCountException;
import io.sightline.routing.multimodal.spec.ModelProcessorSpec;
import io.sightline.routing.prompt.EncodedPrompt;
import io.sightline.routing.prompt.ImageTokenEstimator;
import io.sightline.routing.prompt.PromptEncoder;
import io.sightline.routing.prompt.PromptEncodingException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The engine's input processing: chat template + tokenizer (the shared prompt-encoding stage, so
 * the ids equal the real engine's when a model directory is loaded), then each image's single
 * placeholder expanded to as many placeholder tokens as the model's processor produces ({@link
 * ModelProcessorSpec#numImageTokens}, or an llm-d style estimate when the model has no spec).
 *
 * <p>Images are read from the chat body in request order: parts {@code {"type": "image_url",
 * "image_url": {"url": …} | "…", "uuid": "…"}}. The {@code uuid} sibling field is vLLM's way to
 * pass a caller identifier on the OpenAI API ({@code vllm/entrypoints/chat_utils.py}, {@code
 * _parse_chat_message_content_part}: {@code part.get("uuid")}; with a uuid the url may be null and
 * the item is looked up in the processor cache); it replaces the engine's own item hash.
 */
public final class SimPromptStage {
  /** Placeholder id used when neither a spec nor the encoder gives one (Qwen-VL's image pad). */
  public static final int DEFAULT_PLACEHOLDER_ID = 151655;

  private final PromptEncoder encoder;
  private final ModelProcessorSpec spec;
  private final ImageTokenEstimator estimator;
  private final ImageResolver resolver;
  private final boolean honourUuids;

  /**
   * @param encoder prompt encoder (exact when a model directory was loaded)
   * @param spec the model's processor spec, or null for the estimate
   * @param estimator image token estimate used without a spec
   * @param resolver image loader
   * @param honourUuids true for vLLM (uuid replaces the identifier), false for TRT-LLM (no HTTP
   *     field for it; the part's extra keys are ignored)
   */
  public SimPromptStage(
      PromptEncoder encoder,
      ModelProcessorSpec spec,
      ImageTokenEstimator estimator,
      ImageResolver resolver,
      boolean honourUuids) {
    this.encoder = Objects.requireNonNull(encoder);
    this.spec = spec;
    this.estimator = Objects.requireNonNull(estimator);
    this.resolver = Objects.requireNonNull(resolver);
    this.honourUuids = honourUuids;
  }

  public boolean exact() {
    return encoder.exact();
  }

  /** Tokenizes a chat body and expands its images. */
  public ExpandedPrompt prepareChat(JsonNode body) throws SimRequestException {
    List<SimImage> images = resolveImages(body);
    EncodedPrompt encoded;
    try {
      encoded = encoder.encodeChat(body);
    } catch (PromptEncodingException e) {
      throw SimRequestException.badRequest(e.getMessage(), "messages");
    } catch (RuntimeException e) {
      throw SimRequestException.badRequest("cannot apply chat template: " + e.getMessage());
    }
    if (encoded.imagePositions().length != images.size()) {
      throw SimRequestException.badRequest(
          "the prompt has "
              + encoded.imagePositions().length
              + " image placeholders but the request has "
              + images.size()
              + " images",
          "messages");
    }
    return expand(encoded.tokenIds(), encoded.imagePositions(), images);
  }

  /** Tokenizes a completions body ({@code prompt} text or ids; no images). */
  public ExpandedPrompt prepareCompletion(JsonNode body) throws SimRequestException {
    try {
      EncodedPrompt encoded = encoder.encodeCompletion(body);
      return new ExpandedPrompt(encoded.tokenIds(), List.of());
    } catch (PromptEncodingException e) {
      throw SimRequestException.badRequest(e.getMessage(), "prompt");
    } catch (RuntimeException e) {
      throw SimRequestException.badRequest("cannot tokenize prompt: " + e.getMessage(), "prompt");
    }
  }

  /** Token ids and image runs before request-level keys are attached. */
  public record ExpandedPrompt(int[] tokens, List<PreparedPrompt.MmItem> items) {}

  private ExpandedPrompt expand(int[] ids, int[] positions, List<SimImage> images)
      throws SimRequestException {
    if (images.isEmpty()) {
      return new ExpandedPrompt(ids, List.of());
    }
    int[] counts = new int[images.size()];
    long total = ids.length;
    for (int i = 0; i < images.size(); i++) {
      SimImage img = images.get(i);
      try {
        counts[i] =
            spec != null
                ? spec.numImageTokens(img.width(), img.height())
                : estimator.estimate(img.width(), img.height());
      } catch (ImageTokenCountException | IllegalArgumentException e) {
        throw SimRequestException.badRequest("image " + i + ": " + e.getMessage(), "messages");
      }
      total += counts[i] - 1L;
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw SimRequestException.badRequest("prompt too long after image expansion", "messages");
    }
    int[] out = new int[(int) total];
    List<PreparedPrompt.MmItem> items = new ArrayList<>(images.size());
    int src = 0;
    int dst = 0;
    for (int i = 0; i < positions.length; i++) {
      int p = positions[i];
      if (p < src || p >= ids.length) {
        throw SimRequestException.badRequest("image placeholders out of order", "messages");
      }
      System.arraycopy(ids, src, out, dst, p - src);
      dst += p - src;
      int placeholder = spec != null ? spec.placeholderTokenId() : placeholderFor(ids[p]);
      java.util.Arrays.fill(out, dst, dst + counts[i], placeholder);
      items.add(new PreparedPrompt.MmItem(dst, counts[i], images.get(i)));
      dst += counts[i];
      src = p + 1;
    }
    System.arraycopy(ids, src, out, dst, ids.length - src);
    return new ExpandedPrompt(out, items);
  }

  private static int placeholderFor(int encoderToken) {
    // The approximate encoder marks images with 0xFFFFFFFF; use a real-looking id instead.
    return encoderToken < 0 ? DEFAULT_PLACEHOLDER_ID : encoderToken;
  }

  private List<SimImage> resolveImages(JsonNode body) throws SimRequestException {
    List<SimImage> images = new ArrayList<>();
    JsonNode messages = body.get("messages");
    if (messages == null || !messages.isArray()) {
      throw SimRequestException.badRequest("'messages' must be an array", "messages");
    }
    for (JsonNode message : messages) {
      JsonNode content = message.get("content");
      if (content == null || !content.isArray()) {
        continue;
      }
      for (JsonNode part : content) {
        if (!part.isObject()) {
          continue;
        }
        String type = part.path("type").asText(null);
        if ("video_url".equals(type) || "audio_url".equals(type) || "input_audio".equals(type)) {
          throw SimRequestException.badRequest(
              "content part type '" + type + "' is not supported by this model", "messages");
        }
        boolean image = "image_url".equals(type) || (type == null && part.has("image_url"));
        if (!image) {
          continue;
        }
        JsonNode urlNode = part.get("image_url");
        String url = null;
        if (urlNode != null && urlNode.isTextual()) {
          url = urlNode.asText();
        } else if (urlNode != null && urlNode.isObject() && urlNode.path("url").isTextual()) {
          url = urlNode.path("url").asText();
        }
        JsonNode uuidNode = part.get("uuid");
        String uuid =
            honourUuids && uuidNode != null && !uuidNode.isNull() ? uuidNode.asText() : null;
        images.add(resolver.resolve(url, uuid));
      }
    }
    return images;
  }
}
