package io.sightline.routing.multimodal.spec;

import java.util.Optional;

/**
 * The result of looking for a processor spec in a model directory: the spec, or the reason the
 * model is routed on text only (unrecognised family, unreadable files, missing placeholder id).
 */
public record SpecResolution(Optional<ModelProcessorSpec> spec, String reason) {

  public static SpecResolution found(ModelProcessorSpec spec) {
    return new SpecResolution(Optional.of(spec), "recognised as " + spec.family().id());
  }

  public static SpecResolution textOnly(String reason) {
    return new SpecResolution(Optional.empty(), reason);
  }

  public boolean recognised() {
    return spec.isPresent();
  }
}
