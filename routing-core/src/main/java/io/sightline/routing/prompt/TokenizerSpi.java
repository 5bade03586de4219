package io.sightline.routing.prompt;

import java.util.OptionalInt;

/**
 * A Hugging Face style tokenizer, as used by the engine. Implemented in {@code prompt-hf} with DJL
 * (the Rust {@code tokenizers} crate vLLM also uses). Thread-safe.
 */
public interface TokenizerSpi {

  /**
   * Encodes text without truncation or padding.
   *
   * @param addSpecialTokens apply the tokenizer's post-processor (BOS/EOS) – false for chat
   *     prompts, whose template already wrote the special tokens
   * @throws PromptEncodingException kind {@code TOKENIZER_ERROR} if the native tokenizer fails
   */
  int[] encode(String text, boolean addSpecialTokens) throws PromptEncodingException;

  /** Decodes ids back to text (special tokens kept); for diagnostics and the CLI. */
  String decode(int[] ids) throws PromptEncodingException;

  /** The id of a token string (vocabulary or added token), if it exists. */
  OptionalInt tokenId(String token);
}
