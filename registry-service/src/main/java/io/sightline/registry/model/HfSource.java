package io.sightline.registry.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.Map;

/**
 * Where a model's Hugging Face files are: a directory {@code path} readable by the services that
 * need them (router, gateway), or the small files {@code inline} (file name → JSON object for
 * {@code .json} files, or a string with the file's text). Exactly one of the two is set.
 *
 * <p>Inline files let a fleet register a model without a shared volume; they are bounded by the
 * registry's request size limit ({@code sightline.registry.max-body-bytes}).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record HfSource(String path, Map<String, JsonNode> files) {
  public HfSource {
    files = files == null ? null : Map.copyOf(files);
  }

  /** A source that points at a directory. */
  public static HfSource directory(String path) {
    return new HfSource(path, null);
  }

  /** A source with the files inline. */
  public static HfSource inline(Map<String, JsonNode> files) {
    return new HfSource(null, files);
  }
}
