package io.sightline.registry.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.HfSource;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.RegistryJson;
import io.sightline.registry.store.InMemoryRegistryStore;
import io.sightline.registry.store.RegistryStore;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Detection through routing-core's ProcessorSpecs on real Qwen2-VL files (see PROVENANCE.md). */
class ProcessorFamilyDetectorTest {
  private final ProcessorFamilyDetector detector = new ProcessorFamilyDetector();

  static Path qwenDir() throws URISyntaxException {
    return Path.of(
            ProcessorFamilyDetectorTest.class
                .getResource("/models/Qwen2-VL-7B-Instruct/config.json")
                .toURI())
        .getParent();
  }

  @Test
  void detectsFromADirectory() throws Exception {
    assertThat(detector.detect(HfSource.directory(qwenDir().toString()))).contains("qwen2_vl");
  }

  @Test
  void detectsFromInlineFiles() throws Exception {
    Path dir = qwenDir();
    Map<String, JsonNode> files =
        Map.of(
            "config.json",
            RegistryJson.mapper().readTree(Files.readString(dir.resolve("config.json"))),
            "preprocessor_config.json",
            RegistryJson.mapper()
                .readTree(Files.readString(dir.resolve("preprocessor_config.json"))));
    assertThat(detector.detect(HfSource.inline(files))).contains("qwen2_vl");
  }

  @Test
  void unknownOrMissingFilesDetectNothingAndNeverThrow() {
    assertThat(detector.detect(HfSource.directory("/definitely/not/here"))).isEmpty();
    assertThat(
            detector.detect(
                HfSource.inline(
                    Map.of(
                        "config.json",
                        RegistryJson.mapper().createObjectNode().put("model_type", "llama")))))
        .isEmpty();
    assertThat(
            detector.detect(
                HfSource.inline(
                    Map.of("config.json", RegistryJson.mapper().getNodeFactory().textNode("{")))))
        .isEmpty();
    assertThat(detector.detect(null)).isEmpty();
  }

  @Test
  void theServiceStoresTheDetectedFamily() throws Exception {
    try (InMemoryRegistryStore store = new InMemoryRegistryStore()) {
      RegistryService service = new RegistryService(store, detector, 10, 3600);
      ModelCard card =
          new ModelCard(
              null,
              "Qwen/Qwen2-VL-7B-Instruct",
              null,
              BackendKind.VLLM,
              HfSource.directory(qwenDir().toString()),
              null,
              null,
              16,
              null,
              null,
              null,
              null,
              null);
      ModelCard stored = service.putModel(card, RegistryStore.MUST_NOT_EXIST).value();
      assertThat(stored.processorFamily()).isEqualTo("qwen2_vl");
      assertThat(stored.processorFamilySource()).isEqualTo("detected");
    }
  }
}
