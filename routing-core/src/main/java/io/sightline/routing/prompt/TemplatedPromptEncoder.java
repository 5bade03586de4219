package io.sightline.routing.prompt;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The exact encoder: vLLM's message normalisation → chat template → tokenizer, as vLLM's {@code
 * OpenAIServingChat} does it (template kwargs built as in {@code apply_hf_chat_template}: {@code
 * add_generation_prompt} (default true), {@code continue_final_message}, {@code documents}, then
 * the request's {@code chat_template_kwargs} on top, then the tokenizer's special tokens as
 * transformers passes them). Chat prompts are tokenized with {@code add_special_tokens=false}
 * unless the request says otherwise (vLLM's default for chat); completion prompts with {@code true}
 * (vLLM's default for completions).
 *
 * <p>Thread-safe if the template and tokenizer are (the {@code prompt-hf} ones are).
 */
public final class TemplatedPromptEncoder implements PromptEncoder {

  private final ChatTemplate template;
  private final TokenizerSpi tokenizer;
  private final Map<String, Object> baseContext;
  private final OptionalInt imagePlaceholderId;
  private final ChatRequestNormalizer normalizer = new ChatRequestNormalizer();

  /**
   * @param template the model's parsed chat template, or null if the model has none (chat requests
   *     then fail with {@code TEMPLATE_ERROR})
   * @param tokenizer the model's tokenizer
   * @param baseContext template variables every render gets (special tokens such as {@code
   *     bos_token}, {@code eos_token})
   * @param imagePlaceholderId the token id one image renders to before expansion ({@code
   *     <|image_pad|>}, {@code <image>}), if the model takes images
   */
  public TemplatedPromptEncoder(
      ChatTemplate template,
      TokenizerSpi tokenizer,
      Map<String, Object> baseContext,
      OptionalInt imagePlaceholderId) {
    this.template = template;
    this.tokenizer = Objects.requireNonNull(tokenizer, "tokenizer");
    this.baseContext = Map.copyOf(baseContext);
    this.imagePlaceholderId = Objects.requireNonNull(imagePlaceholderId, "imagePlaceholderId");
  }

  @Override
  public boolean exact() {
    return true;
  }

  public OptionalInt imagePlaceholderId() {
    return imagePlaceholderId;
  }

  public TokenizerSpi tokenizer() {
    return tokenizer;
  }

  /** Renders the prompt string for a chat request without tokenizing it. */
  public String renderChat(JsonNode request) throws PromptEncodingException {
    return render(request, normalizer.normalize(request));
  }

  @Override
  public EncodedPrompt encodeChat(JsonNode request) throws PromptEncodingException {
    ChatRequestNormalizer.Normalized normalized = normalizer.normalize(request);
    String prompt = render(request, normalized);
    boolean addSpecial = booleanField(request, "add_special_tokens", false);
    int[] ids = tokenizer.encode(prompt, addSpecial);
    return new EncodedPrompt(
        prompt,
        ids,
        normalized.numImages(),
        placeholderPositions(ids),
        EncodedPrompt.Mode.EXACT,
        null);
  }

  private String render(JsonNode request, ChatRequestNormalizer.Normalized normalized)
      throws PromptEncodingException {
    if (template == null) {
      throw new PromptEncodingException(
          PromptEncodingException.Kind.TEMPLATE_ERROR, "the model has no chat template");
    }
    JsonNode requestTemplate = request.get("chat_template");
    if (requestTemplate != null && !requestTemplate.isNull()) {
      // vLLM renders a request-supplied template only with --trust-request-chat-template; either
      // way it is not the model's template, so the model's render would be silently wrong.
      throw new PromptEncodingException(
          PromptEncodingException.Kind.TEMPLATE_ERROR,
          "the request supplies its own chat_template; the router renders only the model's");
    }
    boolean addGenerationPrompt = booleanField(request, "add_generation_prompt", true);
    boolean continueFinal = booleanField(request, "continue_final_message", false);
    if (addGenerationPrompt && continueFinal && request.has("add_generation_prompt")) {
      throw new PromptEncodingException(
          PromptEncodingException.Kind.INVALID_REQUEST,
          "continue_final_message and add_generation_prompt cannot both be true");
    }
    if (continueFinal) {
      addGenerationPrompt = false;
    }
    Map<String, Object> context = new HashMap<>(baseContext);
    context.put("add_generation_prompt", addGenerationPrompt);
    context.put("continue_final_message", continueFinal);
    JsonNode documents = request.get("documents");
    context.put("documents", ChatRequestNormalizer.toJava(documents));
    JsonNode kwargs = request.get("chat_template_kwargs");
    if (kwargs != null && !kwargs.isNull()) {
      if (!kwargs.isObject()) {
        throw new PromptEncodingException(
            PromptEncodingException.Kind.INVALID_REQUEST,
            "'chat_template_kwargs' must be an object");
      }
      Iterator<Map.Entry<String, JsonNode>> fields = kwargs.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> e = fields.next();
        if (e.getKey().equals("chat_template") || e.getKey().equals("tokenize")) {
          // vLLM's resolve_chat_template_kwargs rejects these.
          throw new PromptEncodingException(
              PromptEncodingException.Kind.INVALID_REQUEST,
              "chat_template_kwargs must not contain '" + e.getKey() + "'");
        }
        context.put(e.getKey(), ChatRequestNormalizer.toJava(e.getValue()));
      }
    }
    context.put("messages", normalized.messages());
    context.put("tools", normalized.tools());
    String rendered = template.render(context);
    if (continueFinal) {
      rendered = trimToFinalMessage(rendered, normalized.messages());
    }
    return rendered;
  }

  /**
   * transformers' {@code continue_final_message}: cut the render right after the final message's
   * text so generation continues it.
   */
  private static String trimToFinalMessage(String rendered, List<Object> messages)
      throws PromptEncodingException {
    Object content = ((Map<?, ?>) messages.get(messages.size() - 1)).get("content");
    String finalText = null;
    if (content instanceof String s) {
      finalText = s;
    } else if (content instanceof List<?> parts) {
      for (int i = parts.size() - 1; i >= 0 && finalText == null; i--) {
        if (parts.get(i) instanceof Map<?, ?> part && part.get("text") instanceof String t) {
          finalText = t;
        }
      }
    }
    if (finalText == null) {
      throw new PromptEncodingException(
          PromptEncodingException.Kind.INVALID_REQUEST,
          "continue_final_message is set but the final message has no text to continue");
    }
    String stripped = finalText.strip();
    int at = rendered.lastIndexOf(stripped);
    if (at < 0) {
      throw new PromptEncodingException(
          PromptEncodingException.Kind.TEMPLATE_ERROR,
          "continue_final_message: the final message text is not in the rendered prompt");
    }
    String lstripped = finalText.stripLeading();
    if (rendered.startsWith(lstripped, at)) {
      return rendered.substring(0, at + lstripped.length());
    }
    return rendered.substring(0, at + stripped.length());
  }

  @Override
  public EncodedPrompt encodeCompletion(JsonNode request) throws PromptEncodingException {
    CompletionPrompt prompt = CompletionPrompt.of(request);
    if (prompt.tokenIds() != null) {
      int[] ids = prompt.tokenIds();
      return new EncodedPrompt(
          "", ids, 0, placeholderPositions(ids), EncodedPrompt.Mode.EXACT, null);
    }
    boolean addSpecial = booleanField(request, "add_special_tokens", true);
    int[] ids = tokenizer.encode(prompt.text(), addSpecial);
    return new EncodedPrompt(
        prompt.text(), ids, 0, placeholderPositions(ids), EncodedPrompt.Mode.EXACT, null);
  }

  private int[] placeholderPositions(int[] ids) {
    if (imagePlaceholderId.isEmpty()) {
      return new int[0];
    }
    int placeholder = imagePlaceholderId.getAsInt();
    int count = 0;
    for (int id : ids) {
      if (id == placeholder) {
        count++;
      }
    }
    int[] positions = new int[count];
    int k = 0;
    for (int i = 0; i < ids.length; i++) {
      if (ids[i] == placeholder) {
        positions[k++] = i;
      }
    }
    return positions;
  }

  static boolean booleanField(JsonNode request, String field, boolean defaultValue)
      throws PromptEncodingException {
    JsonNode node = request.get(field);
    if (node == null || node.isNull()) {
      return defaultValue;
    }
    if (!node.isBoolean()) {
      throw new PromptEncodingException(
          PromptEncodingException.Kind.INVALID_REQUEST, "'" + field + "' must be a boolean");
    }
    return node.booleanValue();
  }
}
