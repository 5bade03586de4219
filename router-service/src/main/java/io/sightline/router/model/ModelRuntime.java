package io.sightline.router.model;

import io.sightline.registry.model.ModelCard;
import io.sightline.routing.expansion.MmScheme;
import io.sightline.routing.index.KvIndex;
import io.sightline.routing.multimodal.spec.ModelProcessorSpec;
import io.sightline.routing.prompt.ImageTokenEstimator;
import io.sightline.routing.prompt.PromptEncoder;
import java.util.Optional;

/**
 * Everything the router holds for one served model, loaded from its registry card: the processor
 * spec (how many tokens an image becomes), the prompt encoder (exact with tokenizer files,
 * approximate otherwise), the block size and multimodal scheme, and the KV index fed by the model's
 * workers' events. Immutable except for the index (and its journal), which outlive card reloads
 * when the block layout does not change ({@link #layoutKey()}).
 *
 * @param name the card's name (or the requested name for a model without card)
 * @param card the card, or {@code null} for an unknown model routed text-only
 * @param blockSize KV block size in tokens
 * @param scheme multimodal scheme in effect ({@link MmScheme#OFF} when there is no spec)
 * @param spec the processor spec, when the model is multimodal and recognised
 * @param imageTokenId the placeholder id the engine repeats per image (events side), or -1
 * @param encoder the prompt encoder
 * @param estimator image token estimate for approximate encodings
 * @param exactCapable whether the encoder can produce engine-exact ids
 * @param fallbackReason why routing is degraded for every request of this model ({@code
 *     unknown_model}, {@code no_tokenizer}, {@code no_processor_spec}, {@code load_failed}), or
 *     {@code null}
 * @param loadDetail a human-readable detail for the fallback (logged and shown by explain)
 * @param index the model's KV index
 * @param journal the compacted live-block journal for snapshots
 */
public record ModelRuntime(
    String name,
    ModelCard card,
    int blockSize,
    MmScheme scheme,
    Optional<ModelProcessorSpec> spec,
    int imageTokenId,
    PromptEncoder encoder,
    ImageTokenEstimator estimator,
    boolean exactCapable,
    String fallbackReason,
    String loadDetail,
    KvIndex index,
    EventJournal journal) {

  /** What decides whether an index's contents stay valid across a reload. */
  public record LayoutKey(int blockSize, MmScheme scheme, int imageTokenId) {}

  public LayoutKey layoutKey() {
    return new LayoutKey(blockSize, scheme, imageTokenId);
  }

  /** "precise", "approximate" or "text-only", as reported in explanations. */
  public String defaultMode() {
    if (card == null) {
      return "text-only";
    }
    return exactCapable ? "precise" : "approximate";
  }
}
