package io.sightline.registry.service;

import com.fasterxml.jackson.databind.JsonNode;
import io.sightline.registry.model.HfSource;
import io.sightline.registry.model.RegistryJson;
import io.sightline.routing.multimodal.spec.ProcessorSpecs;
import io.sightline.routing.multimodal.spec.SpecResolution;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds a card's VLM processor family from its Hugging Face files, using routing-core's {@link
 * ProcessorSpecs} (the same code the router uses to expand images, so the registry and the router
 * cannot disagree). Inline files are written to a private temporary directory for the lookup.
 *
 * <p>Detection never fails a write: an unreadable directory (the path may only exist on router
 * hosts) or an unrecognised model gives "not detected", and the card routes on text only unless the
 * writer sets {@code processor_family}.
 */
public class ProcessorFamilyDetector {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessorFamilyDetector.class);

  /** The detected family id, or empty. */
  public Optional<String> detect(HfSource hf) {
    if (hf == null) {
      return Optional.empty();
    }
    try {
      if (hf.path() != null) {
        Path dir = Path.of(hf.path());
        return Files.isDirectory(dir) ? resolve(dir) : Optional.empty();
      }
      if (hf.files() != null) {
        Path tmp = Files.createTempDirectory("sightline-card-");
        try {
          for (Map.Entry<String, JsonNode> f : hf.files().entrySet()) {
            Path target = tmp.resolve(f.getKey()).normalize();
            if (!target.getParent().equals(tmp)) {
              continue; // validated earlier; never write outside the temp dir
            }
            byte[] content =
                f.getValue().isTextual()
                    ? f.getValue().asText().getBytes(StandardCharsets.UTF_8)
                    : RegistryJson.mapper().writeValueAsBytes(f.getValue());
            Files.write(target, content);
          }
          return resolve(tmp);
        } finally {
          deleteTree(tmp);
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.info("processor family detection failed: {}", e.toString());
    }
    return Optional.empty();
  }

  private static Optional<String> resolve(Path dir) {
    SpecResolution r = ProcessorSpecs.resolve(dir);
    if (!r.recognised()) {
      LOG.debug("no processor spec for {}: {}", dir, r.reason());
    }
    return r.spec().map(s -> s.family().id());
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  LOG.debug("cannot delete {}", p);
                }
              });
    } catch (IOException e) {
      LOG.debug("cannot clean {}", dir);
    }
  }
}
