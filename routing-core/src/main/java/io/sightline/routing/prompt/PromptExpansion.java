package io.sightline.routing.prompt;

import io.sightline.routing.expansion.ExpansionException;
import io.sightline.routing.expansion.ImageSlot;
import io.sightline.routing.expansion.MmScheme;
import io.sightline.routing.expansion.RoutingTokens;
import io.sightline.routing.multimodal.spec.ImageTokenCountException;
import io.sightline.routing.multimodal.spec.ModelProcessorSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Turns an {@link EncodedPrompt} into routing tokens: the one place that decides how images are
 * expanded for each encoding mode, so the router, worker-sim and CLI agree.
 *
 * <ul>
 *   <li><b>exact, model has a processor spec</b>: each prompt placeholder ({@code
 *       spec.promptPlaceholderTokenId()}) becomes the spec's replacement for the image's size
 *       ({@link ImageSlot#forImage}); nothing is prepended – chat ids are already the engine's.
 *   <li><b>approximate</b>: each {@link ApproximateEncoder#IMAGE_MARKER} becomes {@link
 *       ImageTokenEstimator} many fill tokens carrying the image's identity.
 *   <li><b>exact, no spec</b> (a text-only model, or a VLM family the router does not know), or
 *       scheme {@code OFF}, or no images: the prompt ids as they are.
 * </ul>
 *
 * @see RoutingTokens
 */
public final class PromptExpansion {

  /** One image of the request, in prompt order: its identity and pixel size. */
  public record Image(long mmHash, int width, int height) {}

  private PromptExpansion() {}

  /**
   * @param prompt the encoded prompt
   * @param spec the model's processor spec, if known
   * @param estimator image-size estimate for approximate prompts
   * @param images the request's images in prompt order (sizes from headers or defaults)
   * @param scheme how image identity enters the routing tokens
   * @throws ExpansionException placeholders and images disagree in number, or the result is too
   *     long
   * @throws ImageTokenCountException the model's processor would reject an image size
   */
  public static RoutingTokens expand(
      EncodedPrompt prompt,
      Optional<ModelProcessorSpec> spec,
      ImageTokenEstimator estimator,
      List<Image> images,
      MmScheme scheme)
      throws ExpansionException, ImageTokenCountException {
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(scheme, "scheme");
    List<Image> imgs = images == null ? List.of() : images;
    if (scheme == MmScheme.OFF || imgs.isEmpty()) {
      return RoutingTokens.textOnly(prompt.tokenIds());
    }
    if (!prompt.exact()) {
      Objects.requireNonNull(estimator, "estimator");
      List<ImageSlot> slots = new ArrayList<>(imgs.size());
      for (Image img : imgs) {
        slots.add(new ImageSlot(img.mmHash(), estimator.estimate(img.width(), img.height())));
      }
      return RoutingTokens.expand(
          prompt.tokenIds(), ApproximateEncoder.IMAGE_MARKER, slots, scheme, OptionalInt.empty());
    }
    if (spec.isEmpty()) {
      return RoutingTokens.textOnly(prompt.tokenIds());
    }
    ModelProcessorSpec s = spec.get();
    List<ImageSlot> slots = new ArrayList<>(imgs.size());
    for (Image img : imgs) {
      slots.add(ImageSlot.forImage(s, img.mmHash(), img.width(), img.height()));
    }
    return RoutingTokens.expand(
        prompt.tokenIds(), s.promptPlaceholderTokenId(), slots, scheme, OptionalInt.empty());
  }
}
