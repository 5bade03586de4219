package io.sightline.router.engine;

import com.fasterxml.jackson.databind.JsonNode;
import io.sightline.router.api.ResolvedImage;
import io.sightline.router.api.RouteRequest;
import io.sightline.router.api.RoutingException;
import io.sightline.router.model.ModelRuntime;
import io.sightline.routing.expansion.ExpansionException;
import io.sightline.routing.expansion.MmScheme;
import io.sightline.routing.expansion.RoutingTokens;
import io.sightline.routing.hashing.BlockHasher;
import io.sightline.routing.multimodal.spec.ImageTokenCountException;
import io.sightline.routing.prompt.ApproximateEncoder;
import io.sightline.routing.prompt.EncodedPrompt;
import io.sightline.routing.prompt.ImageTokenEstimator;
import io.sightline.routing.prompt.PromptEncoder;
import io.sightline.routing.prompt.PromptEncodingException;
import io.sightline.routing.prompt.PromptExpansion;
import java.util.ArrayList;
import java.util.List;

/**
 * Request side of routing (dynamo.md §5 steps 4–5, DESIGN.md "routing-core: the pipeline" 2–5):
 * prompt encoding (exact or approximate), image expansion into routing tokens that carry each
 * image's identity, and local block hashing with the request's cache salt.
 *
 * <p>Degradation is explicit and never fails a well-formed request: no processor spec, an image
 * count that disagrees with the prompt's placeholders, a size the processor rejects, or an
 * expansion error all route on the unexpanded ids ({@code text-only}) with the reason recorded; an
 * encoder failure falls back to the approximate encoder. Only a malformed body is an error (400).
 */
final class RequestPreparer {
  private static final PromptEncoder APPROXIMATE = new ApproximateEncoder();

  PreparedRequest prepare(ModelRuntime rt, RouteRequest req) {
    JsonNode body = req.body();
    String reason = rt.fallbackReason();
    EncodedPrompt enc;
    try {
      enc = encode(rt.encoder(), body, req.chat());
    } catch (PromptEncodingException e) {
      if (!e.fallbackAllowed()) {
        throw new RoutingException(400, "invalid_request", e.getMessage());
      }
      try {
        enc = encode(APPROXIMATE, body, req.chat());
        reason = "encode_failed";
      } catch (PromptEncodingException again) {
        throw new RoutingException(400, "invalid_request", again.getMessage());
      }
    }
    if (reason != null && enc.exact() && !"unknown_model".equals(reason)) {
      // a model-level degradation only counts for requests it affected: ids given by the caller
      // are exact without a tokenizer, and a missing spec matters only with images
      reason = null;
    }
    if (enc.fallbackReason() != null) {
      reason = "encode_failed";
    }
    String mode = rt.card() == null ? "text-only" : enc.exact() ? "precise" : "approximate";

    List<ResolvedImage> images = req.images();
    RoutingTokens routing = null;
    int imageTokens = 0;
    boolean wantsImages = !images.isEmpty() || enc.numImages() > 0;
    if (wantsImages && rt.card() != null) {
      if (rt.scheme() == MmScheme.OFF) {
        reason =
            reason != null
                ? reason
                : (rt.fallbackReason() != null ? rt.fallbackReason() : "no_processor_spec");
      } else if (images.size() != enc.numImages()
          || enc.imagePositions().length != enc.numImages()) {
        reason = "image_count_mismatch";
      } else {
        try {
          // One expansion rule for router, worker-sim and CLI: exact prompts expand the spec's
          // prompt placeholder into its full replacement (wrapper tokens included) and never
          // prepend BOS (chat ids are already the engine's); approximate prompts expand markers.
          routing =
              PromptExpansion.expand(
                  enc, rt.spec(), rt.estimator(), expansionImages(enc, images), rt.scheme());
          imageTokens = routing.length() - (enc.tokenIds().length - enc.numImages());
        } catch (ImageTokenCountException e) {
          reason = "image_size_rejected";
          imageTokens = 0;
        } catch (ExpansionException | IllegalArgumentException e) {
          reason = "expansion_failed";
          imageTokens = 0;
        }
      }
    }
    if (routing == null) {
      routing = RoutingTokens.textOnly(enc.tokenIds());
      if (wantsImages && rt.card() != null && !"text-only".equals(mode)) {
        mode = "text-only";
      }
    }
    BlockHasher hasher = rt.index().converter().hasher(null, cacheSalt(body));
    long[] hashes = routing.localHashes(hasher);
    return new PreparedRequest(hashes, routing.length(), imageTokens, mode, reason);
  }

  private static EncodedPrompt encode(PromptEncoder encoder, JsonNode body, boolean chat)
      throws PromptEncodingException {
    return chat ? encoder.encodeChat(body) : encoder.encodeCompletion(body);
  }

  /** Request images in prompt order; approximate prompts assume llm-d's default when unsized. */
  private static List<PromptExpansion.Image> expansionImages(
      EncodedPrompt enc, List<ResolvedImage> images) {
    List<PromptExpansion.Image> out = new ArrayList<>(images.size());
    for (ResolvedImage img : images) {
      boolean sized = img.width() > 0 && img.height() > 0;
      out.add(
          sized || enc.exact()
              ? new PromptExpansion.Image(img.mmHash(), img.width(), img.height())
              : new PromptExpansion.Image(
                  img.mmHash(),
                  ImageTokenEstimator.DEFAULT_WIDTH,
                  ImageTokenEstimator.DEFAULT_HEIGHT));
    }
    return out;
  }

  private static String cacheSalt(JsonNode body) {
    JsonNode salt = body.get("cache_salt");
    return salt != null && salt.isTextual() && !salt.asText().isEmpty() ? salt.asText() : null;
  }
}
