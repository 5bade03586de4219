package io.sightline.routing.multimodal.spec;

import java.nio.file.Path;
import java.util.Optional;

/** Registry that picks a {@link ModelProcessorSpec} for a Hugging Face model directory. */
public final class ProcessorSpecs {
  private ProcessorSpecs() {}

  /** The spec for the model in {@code modelDir}, or empty when it routes on text only. */
  public static Optional<ModelProcessorSpec> fromModelDirectory(Path modelDir) {
    return resolve(modelDir).spec();
  }

  /** Like {@link #fromModelDirectory} but says why a model was not recognised. */
  public static SpecResolution resolve(Path modelDir) {
    return SpecResolution.textOnly("not implemented yet");
  }
}
