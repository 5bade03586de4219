package io.sightline.routing.prompt;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Turns an OpenAI request body into token ids. Implementations are thread-safe and cheap to call
 * concurrently; load them once per model.
 */
public interface PromptEncoder {

  /**
   * Encodes a {@code /v1/chat/completions} body: {@code messages}, plus the vLLM extensions that
   * change the prompt ({@code add_generation_prompt}, {@code continue_final_message}, {@code
   * add_special_tokens}, {@code chat_template_kwargs}, {@code tools}).
   *
   * @throws PromptEncodingException {@link PromptEncodingException.Kind#INVALID_REQUEST} for a
   *     malformed body; a fallback-allowed kind when the template or tokenizer fails
   */
  EncodedPrompt encodeChat(JsonNode request) throws PromptEncodingException;

  /**
   * Encodes a {@code /v1/completions} body. {@code prompt} may be a string, an array of token ids,
   * or a one-element array of either (batches of several prompts are rejected: one request routes
   * to one worker). Strings get the tokenizer's special tokens unless {@code add_special_tokens} is
   * false, as vLLM does.
   */
  EncodedPrompt encodeCompletion(JsonNode request) throws PromptEncodingException;

  /** True if this encoder produces engine-exact ids (a real template and tokenizer). */
  boolean exact();
}
