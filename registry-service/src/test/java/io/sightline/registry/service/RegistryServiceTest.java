package io.sightline.registry.service;

import static io.sightline.registry.Fixtures.worker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.HfSource;
import io.sightline.registry.model.KvEventSource;
import io.sightline.registry.model.LoraAdapter;
import io.sightline.registry.model.MediaDecoder;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.RoutingMode;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.model.WorkerState;
import io.sightline.registry.store.InMemoryRegistryStore;
import io.sightline.registry.store.NotFoundException;
import io.sightline.registry.store.RegistryStore;
import io.sightline.registry.store.RevisionConflictException;
import io.sightline.routing.expansion.MmScheme;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RegistryServiceTest {
  private final InMemoryRegistryStore store = new InMemoryRegistryStore();
  private final RegistryService service =
      new RegistryService(
          store,
          new ProcessorFamilyDetector() {
            @Override
            public Optional<String> detect(HfSource hf) {
              // stands in for routing-core's ProcessorSpecs: "qwen" directories are Qwen2-VL
              return hf != null && hf.path() != null && hf.path().contains("qwen")
                  ? Optional.of("qwen2_vl")
                  : Optional.empty();
            }
          },
          10,
          3600);

  @AfterEach
  void close() {
    store.close();
  }

  static ModelCard card(String name) {
    return new ModelCard(
        null,
        name,
        null,
        BackendKind.VLLM,
        HfSource.directory("/models/" + name),
        null,
        null,
        16,
        null,
        null,
        null,
        null,
        null);
  }

  @Test
  void fillsDefaultsAndDetectsTheProcessorFamily() {
    ModelCard stored = service.putModel(card("qwen-vl"), RegistryStore.ANY_REVISION).value();
    assertThat(stored.schemaVersion()).isEqualTo(1);
    assertThat(stored.mmScheme()).isEqualTo(MmScheme.GEN2);
    assertThat(stored.routingMode()).isEqualTo(RoutingMode.PRECISE);
    assertThat(stored.mediaDecoder()).isEqualTo(MediaDecoder.disabled());
    assertThat(stored.processorFamily()).isEqualTo("qwen2_vl");
    assertThat(stored.processorFamilySource()).isEqualTo("detected");
    assertThat(stored.multimodal()).isTrue();

    ModelCard text = service.putModel(card("llama-text"), RegistryStore.ANY_REVISION).value();
    assertThat(text.processorFamily()).isNull();
    assertThat(text.processorFamilySource()).isEqualTo("none");
    assertThat(text.multimodal()).isFalse();
  }

  @Test
  void anExplicitFamilyOverridesDetection() {
    ModelCard c = card("qwen-vl").withProcessorFamily("llava", "detected");
    ModelCard stored = service.putModel(c, RegistryStore.ANY_REVISION).value();
    assertThat(stored.processorFamily()).isEqualTo("llava");
    assertThat(stored.processorFamilySource()).isEqualTo("override");
  }

  @Test
  void invalidCardReportsEveryFieldAndWritesNothing() {
    ModelCard bad =
        new ModelCard(
            2,
            "bad name!",
            List.of("ok-alias", "ok-alias", "bad name!"),
            null,
            new HfSource("/x", Map.of("config.json", JsonNodeFactory.instance.objectNode())),
            "not-a-family",
            null,
            0,
            MmScheme.GEN1,
            new MediaDecoder(true, 0L, -5L),
            RoutingMode.APPROXIMATE,
            List.of(new LoraAdapter("l", null), new LoraAdapter("l", " ")),
            0);
    long before = store.snapshot().revision();
    assertThatThrownBy(() -> service.putModel(bad, RegistryStore.ANY_REVISION))
        .isInstanceOfSatisfying(
            ValidationException.class,
            e ->
                assertThat(e.errors())
                    .extracting(FieldError::path)
                    .containsExactlyInAnyOrder(
                        "schema_version",
                        "name",
                        "aliases[1]",
                        "aliases[2]",
                        "backend",
                        "hf",
                        "processor_family",
                        "kv_block_size",
                        "media_decoder.max_bytes",
                        "media_decoder.max_pixels",
                        "lora_adapters[1].name",
                        "lora_adapters[1].path",
                        "context_length"));
    assertThat(store.snapshot().revision()).isEqualTo(before);
  }

  @Test
  void preciseRoutingNeedsTheHfFiles() {
    ModelCard noHf = ModelCard.of("m", BackendKind.VLLM, 16);
    assertThatThrownBy(() -> service.putModel(noHf, RegistryStore.ANY_REVISION))
        .isInstanceOfSatisfying(
            ValidationException.class,
            e -> assertThat(e.errors()).extracting(FieldError::path).containsExactly("hf"));
    ModelCard approx =
        new ModelCard(
            null,
            "m",
            null,
            BackendKind.VLLM,
            null,
            null,
            null,
            16,
            null,
            null,
            RoutingMode.APPROXIMATE,
            null,
            null);
    assertThat(service.putModel(approx, RegistryStore.ANY_REVISION).value().name()).isEqualTo("m");
  }

  @Test
  void aliasesAreUniqueAcrossCards() {
    service.putModel(card("a").withAliases(List.of("shared")), RegistryStore.ANY_REVISION);
    assertThatThrownBy(
            () ->
                service.putModel(
                    card("b").withAliases(List.of("shared")), RegistryStore.ANY_REVISION))
        .isInstanceOfSatisfying(
            ConflictException.class,
            e ->
                assertThat(e.reasons())
                    .containsExactly("alias 'shared' is already used by model 'a'"));
    assertThatThrownBy(() -> service.putModel(card("shared"), RegistryStore.ANY_REVISION))
        .isInstanceOf(ConflictException.class)
        .hasMessageContaining("already an alias of model 'a'");
    assertThat(service.model("shared").orElseThrow().value().name()).isEqualTo("a");
  }

  @Test
  void workerWithAnotherBlockSizeIsRefusedWithTheReason() {
    service.putModel(card("m"), RegistryStore.ANY_REVISION);
    WorkerInstance w = worker("w1", "m").withModel("m", 32);
    assertThatThrownBy(() -> service.putWorker(w, RegistryStore.ANY_REVISION, false))
        .isInstanceOfSatisfying(
            ConflictException.class,
            e -> {
              assertThat(e.code()).isEqualTo("worker_card_mismatch");
              assertThat(e.reasons())
                  .containsExactly(
                      "worker 'w1' reports kv_block_size 32 but model 'm' uses 16: its block"
                          + " hashes would never match the router's");
            });
    assertThat(store.worker("w1")).isEmpty();
  }

  @Test
  void workerDialectAndServedModelMustMatchTheCard() {
    service.putModel(card("m").withAliases(List.of("m-alias")), RegistryStore.ANY_REVISION);
    WorkerInstance trt =
        new WorkerInstance(
            null,
            "w",
            "m",
            "other-model",
            "http://h:1",
            BackendKind.TRTLLM,
            null,
            null,
            KvEventSource.trtllmPoll("http://h:1/kv_cache_events", 100),
            null,
            null,
            null,
            null);
    assertThatThrownBy(() -> service.putWorker(trt, RegistryStore.ANY_REVISION, false))
        .isInstanceOfSatisfying(
            ConflictException.class,
            e ->
                assertThat(e.reasons())
                    .anyMatch(r -> r.contains("speaks trtllm but model 'm' is served by vllm"))
                    .anyMatch(r -> r.contains("serves model 'other-model'")));
    WorkerInstance ok =
        new WorkerInstance(
            null,
            "w",
            "m-alias",
            "m-alias",
            "http://h:1",
            BackendKind.VLLM,
            null,
            null,
            null,
            null,
            null,
            null,
            null);
    WorkerInstance stored = service.putWorker(ok, RegistryStore.ANY_REVISION, false).value();
    assertThat(stored.model()).as("aliases resolve to the card's name").isEqualTo("m");
    assertThat(stored.kvBlockSize()).as("block size defaults to the card's").isEqualTo(16);
    assertThat(stored.leased()).isFalse();
  }

  @Test
  void unknownModelIsAFieldError() {
    assertThatThrownBy(
            () -> service.putWorker(worker("w", "ghost"), RegistryStore.ANY_REVISION, false))
        .isInstanceOfSatisfying(
            ValidationException.class,
            e -> {
              assertThat(e.errors()).extracting(FieldError::path).containsExactly("model");
              assertThat(e.getMessage()).contains("unknown model 'ghost'");
            });
  }

  @Test
  void selfRegistrationGetsTheDefaultLease() {
    service.putModel(card("m"), RegistryStore.ANY_REVISION);
    WorkerInstance w =
        service.putWorker(worker("w", "m"), RegistryStore.ANY_REVISION, true).value();
    assertThat(w.leaseTtlSeconds()).isEqualTo(10);
    service.heartbeat("w");
    assertThatThrownBy(() -> service.heartbeat("nobody"))
        .isInstanceOf(NotFoundException.class)
        .hasMessageContaining("register again");
  }

  @Test
  void cardChangesThatWouldStrandWorkersAreRefused() {
    long rev = service.putModel(card("m"), RegistryStore.ANY_REVISION).revision();
    service.putWorker(worker("w1", "m"), RegistryStore.ANY_REVISION, false);
    assertThatThrownBy(() -> service.putModel(card("m").withKvBlockSize(32), rev))
        .isInstanceOfSatisfying(
            ConflictException.class,
            e ->
                assertThat(e.reasons())
                    .singleElement()
                    .asString()
                    .contains("'w1' reports kv_block_size 16"));
    assertThatThrownBy(() -> service.deleteModel("m", RegistryStore.ANY_REVISION))
        .isInstanceOfSatisfying(
            ConflictException.class, e -> assertThat(e.code()).isEqualTo("model_in_use"));
    service.deleteWorker("w1", RegistryStore.ANY_REVISION);
    service.deleteModel("m", RegistryStore.ANY_REVISION);
    assertThat(store.model("m")).isEmpty();
  }

  @Test
  void drainingKeepsTheRestOfTheWorkerAndChecksRevisions() {
    service.putModel(card("m"), RegistryStore.ANY_REVISION);
    long rev = service.putWorker(worker("w", "m"), RegistryStore.ANY_REVISION, false).revision();
    var drained = service.setState("w", WorkerState.DRAINING, rev);
    assertThat(drained.value()).isEqualTo(worker("w", "m").withState(WorkerState.DRAINING));
    assertThatThrownBy(() -> service.setState("w", WorkerState.READY, rev))
        .isInstanceOf(RevisionConflictException.class);
  }
}
