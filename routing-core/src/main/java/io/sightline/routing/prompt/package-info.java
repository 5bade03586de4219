/**
 * Prompt encoding: OpenAI chat / completions request → the token ids the engine will see.
 *
 * <p>Two modes (see ../shared/reference/tokenizers.md and ../shared/reference/llmd.md §4–5):
 *
 * <ul>
 *   <li><b>exact</b> – {@link io.sightline.routing.prompt.TemplatedPromptEncoder}: vLLM's message
 *       normalisation ({@link io.sightline.routing.prompt.ChatRequestNormalizer}), the model's chat
 *       template ({@link io.sightline.routing.prompt.ChatTemplate}) and its Hugging Face tokenizer
 *       ({@link io.sightline.routing.prompt.TokenizerSpi}). The heavy implementations (jinjava,
 *       DJL) live in the {@code prompt-hf} module so this package stays framework-free.
 *   <li><b>approximate</b> – {@link io.sightline.routing.prompt.ApproximateEncoder}: bytes/4
 *       pseudo-tokens as llm-d's {@code estimate} backend does, one marker per image; image sizes
 *       are estimated with {@link io.sightline.routing.prompt.ImageTokenEstimator}.
 * </ul>
 *
 * <p>{@link io.sightline.routing.prompt.FallbackPromptEncoder} combines both: a request whose
 * template fails to render is encoded approximately and counted, never routed on a wrong prompt.
 */
package io.sightline.routing.prompt;
