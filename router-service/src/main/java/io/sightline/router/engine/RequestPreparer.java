package io.sightline.router.engine;

import com.fasterxml.jackson.databind.JsonNode;
import io.sightline.router.api.ResolvedImage;
import io.sightline.router.api.RouteRequest;
import io.sightline.router.api.RoutingException;
import io.sightline.router.model.ModelRuntime;
import io.sightline.routing.expansion.ExpansionException;
import io.sightline.routing.expansion.ImageSlot;
import io.sightline.routing.expansion.MmScheme;
import io.sightline.routing.expansion.RoutingTokens;
import io.sightline.routing.hashing.BlockHasher;
import io.sightline.routing.multimodal.spec.ImageTokenCountException;
import io.sightline.routing.multimodal.spec.ModelProcessorSpec;
import io.sightline.routing.prompt.ApproximateEncoder;
import io.sightline.routing.prompt.EncodedPrompt;
import io.sightline.routing.prompt.PromptEncoder;
import io.sightline.routing.prompt.PromptEncodingException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

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
          List<ImageSlot> slots = slots(rt, enc, images);
          for (ImageSlot s : slots) {
            imageTokens += s.numTokens();
          }
          int placeholder =
              enc.exact()
                  ? rt.spec().map(ModelProcessorSpec::placeholderTokenId).orElse(-1)
                  : ApproximateEncoder.IMAGE_MARKER;
          OptionalInt bos = enc.exact() ? bosIfMissing(rt, enc.tokenIds()) : OptionalInt.empty();
          routing = RoutingTokens.expand(enc.tokenIds(), placeholder, slots, rt.scheme(), bos);
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

  private static List<ImageSlot> slots(
      ModelRuntime rt, EncodedPrompt enc, List<ResolvedImage> images)
      throws ImageTokenCountException {
    List<ImageSlot> slots = new ArrayList<>(images.size());
    for (ResolvedImage img : images) {
      int n;
      if (enc.exact() && rt.spec().isPresent()) {
        n = rt.spec().get().numImageTokens(img.width(), img.height());
      } else if (img.width() > 0 && img.height() > 0) {
        n = rt.estimator().estimate(img.width(), img.height());
      } else {
        n = rt.estimator().estimateUnknown();
      }
      slots.add(new ImageSlot(img.mmHash(), n));
    }
    return slots;
  }

  private static OptionalInt bosIfMissing(ModelRuntime rt, int[] ids) {
    if (rt.spec().isEmpty()) {
      return OptionalInt.empty();
    }
    OptionalInt bos = rt.spec().get().bosTokenId();
    if (bos.isPresent() && ids.length > 0 && ids[0] == bos.getAsInt()) {
      return OptionalInt.empty();
    }
    return bos;
  }

  private static String cacheSalt(JsonNode body) {
    JsonNode salt = body.get("cache_salt");
    return salt != null && salt.isTextual() && !salt.asText().isEmpty() ? salt.asText() : null;
  }
}
