package io.sightline.routing.prompt;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;

/**
 * Exact encoding with a counted fallback: when the exact encoder fails for a reason other than a
 * malformed request (template raised or rendered with errors, tokenizer failed), the request is
 * encoded by the approximate encoder instead and the failure is counted. A request is never routed
 * on a silently wrong prompt, and never rejected just because the router's template copy failed.
 * Malformed requests ({@link PromptEncodingException.Kind#INVALID_REQUEST}) still throw.
 *
 * <p>Counts per failure kind are exposed for metrics ({@link #fallbacks}); a listener may be given
 * to log or meter each fallback. Thread-safe.
 */
public final class FallbackPromptEncoder implements PromptEncoder {

  private final PromptEncoder exact;
  private final PromptEncoder approximate;
  private final BiConsumer<JsonNode, PromptEncodingException> listener;
  private final Map<PromptEncodingException.Kind, LongAdder> counts =
      new EnumMap<>(PromptEncodingException.Kind.class);

  /**
   * @param exact the exact encoder; null when the model has no tokenizer (always approximate)
   * @param approximate the fallback
   * @param listener called with the request and the failure on each fallback; may be null
   */
  public FallbackPromptEncoder(
      PromptEncoder exact,
      PromptEncoder approximate,
      BiConsumer<JsonNode, PromptEncodingException> listener) {
    this.exact = exact;
    this.approximate = Objects.requireNonNull(approximate, "approximate");
    this.listener = listener;
    for (PromptEncodingException.Kind kind : PromptEncodingException.Kind.values()) {
      counts.put(kind, new LongAdder());
    }
  }

  @Override
  public boolean exact() {
    return exact != null;
  }

  @Override
  public EncodedPrompt encodeChat(JsonNode request) throws PromptEncodingException {
    if (exact == null) {
      return approximate.encodeChat(request);
    }
    try {
      return exact.encodeChat(request);
    } catch (PromptEncodingException e) {
      if (!e.fallbackAllowed()) {
        throw e;
      }
      recordFallback(request, e);
      return approximate.encodeChat(request).withFallbackReason(describe(e));
    }
  }

  @Override
  public EncodedPrompt encodeCompletion(JsonNode request) throws PromptEncodingException {
    if (exact == null) {
      return approximate.encodeCompletion(request);
    }
    try {
      return exact.encodeCompletion(request);
    } catch (PromptEncodingException e) {
      if (!e.fallbackAllowed()) {
        throw e;
      }
      recordFallback(request, e);
      return approximate.encodeCompletion(request).withFallbackReason(describe(e));
    }
  }

  /** How many requests fell back because of failures of this kind. */
  public long fallbacks(PromptEncodingException.Kind kind) {
    return counts.get(kind).sum();
  }

  /** Total fallbacks. */
  public long fallbacks() {
    long total = 0;
    for (LongAdder a : counts.values()) {
      total += a.sum();
    }
    return total;
  }

  private void recordFallback(JsonNode request, PromptEncodingException e) {
    counts.get(e.kind()).increment();
    if (listener != null) {
      listener.accept(request, e);
    }
  }

  private static String describe(PromptEncodingException e) {
    return e.kind() + ": " + e.getMessage();
  }
}
