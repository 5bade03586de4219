package io.sightline.registry.service;

import io.sightline.registry.model.ApiKey;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.Versioned;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.model.WorkerState;
import io.sightline.registry.store.NotFoundException;
import io.sightline.registry.store.RegistryStore;
import io.sightline.registry.store.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The registry's write rules, on top of a {@link RegistryStore}: defaults, schema validation,
 * processor-family detection, alias uniqueness, and the card/worker consistency checks that keep a
 * router from silently missing every cache hit (a worker whose block size differs from its card's
 * produces block hashes that never match, see dynamo.md §9 "mdcsum must match across a model's
 * workers").
 *
 * <p>Reads go straight to the store (the admin API wants the authoritative state, not a cache).
 * Cross-entry checks read then write without a multi-key transaction: two admins racing to create
 * conflicting aliases could both succeed; each single entry is still protected by its revision.
 */
public class RegistryService {
  /** {@code processor_family_source} values. */
  public static final String SOURCE_OVERRIDE = "override";

  public static final String SOURCE_DETECTED = "detected";
  public static final String SOURCE_NONE = "none";

  private final RegistryStore store;
  private final Validator validator;
  private final ProcessorFamilyDetector detector;
  private final int defaultLeaseTtlSeconds;

  public RegistryService(
      RegistryStore store,
      ProcessorFamilyDetector detector,
      int defaultLeaseTtlSeconds,
      int maxLeaseTtlSeconds) {
    this.store = store;
    this.detector = detector;
    this.validator = new Validator(maxLeaseTtlSeconds);
    this.defaultLeaseTtlSeconds = defaultLeaseTtlSeconds;
  }

  public RegistryStore store() {
    return store;
  }

  /** The lease TTL given to self-registering workers that do not ask for one. */
  public int defaultLeaseTtlSeconds() {
    return defaultLeaseTtlSeconds;
  }

  // --- models ---------------------------------------------------------------------------------

  public Snapshot snapshot() {
    return store.snapshot();
  }

  /** A card by name or alias. */
  public Optional<Versioned<ModelCard>> model(String nameOrAlias) {
    Optional<Versioned<ModelCard>> direct = store.model(nameOrAlias);
    if (direct.isPresent()) {
      return direct;
    }
    return store.snapshot().models().stream()
        .filter(v -> v.value().answersTo(nameOrAlias))
        .findFirst();
  }

  /**
   * Validates and writes a card.
   *
   * @param expectedRevision see {@link RegistryStore} (create-only, unconditional, or a revision)
   * @return the stored card (with defaults and detected family) and its revision
   */
  public Versioned<ModelCard> putModel(ModelCard submitted, long expectedRevision) {
    ModelCard card = prepare(submitted);
    List<FieldError> errors = validator.validate(card);
    if (!errors.isEmpty()) {
      throw new ValidationException(errors);
    }
    Snapshot s = store.snapshot();
    List<String> reasons = new ArrayList<>();
    for (Versioned<ModelCard> other : s.models()) {
      ModelCard o = other.value();
      if (o.name().equals(card.name())) {
        continue;
      }
      if (o.answersTo(card.name())) {
        reasons.add("name '" + card.name() + "' is already an alias of model '" + o.name() + "'");
      }
      for (String a : card.aliases()) {
        if (o.answersTo(a)) {
          reasons.add("alias '" + a + "' is already used by model '" + o.name() + "'");
        }
      }
    }
    for (Versioned<WorkerInstance> w : s.workers()) {
      if (w.value().model().equals(card.name())) {
        reasons.addAll(mismatches(card, w.value()));
      }
    }
    if (!reasons.isEmpty()) {
      throw new ConflictException("model_conflict", reasons);
    }
    long rev = store.putModel(card, expectedRevision);
    return new Versioned<>(card, rev);
  }

  /** Deletes a card; refused while workers still serve it. */
  public long deleteModel(String name, long expectedRevision) {
    Versioned<ModelCard> card =
        store.model(name).orElseThrow(() -> new NotFoundException("model " + name + " not found"));
    List<String> serving =
        store.snapshot().workers().stream()
            .map(Versioned::value)
            .filter(w -> w.model().equals(card.value().name()))
            .map(WorkerInstance::id)
            .sorted()
            .toList();
    if (!serving.isEmpty()) {
      throw new ConflictException(
          "model_in_use",
          List.of("model '" + name + "' still has workers " + serving + "; remove them first"));
    }
    return store.deleteModel(name, expectedRevision);
  }

  private ModelCard prepare(ModelCard submitted) {
    ModelCard card = submitted.withDefaults();
    if (card.processorFamily() != null) {
      return card.withProcessorFamily(card.processorFamily(), SOURCE_OVERRIDE);
    }
    return detector
        .detect(card.hf())
        .map(f -> card.withProcessorFamily(f, SOURCE_DETECTED))
        .orElseGet(() -> card.withProcessorFamily(null, SOURCE_NONE));
  }

  // --- workers --------------------------------------------------------------------------------

  public Optional<Versioned<WorkerInstance>> worker(String id) {
    return store.worker(id);
  }

  /**
   * Validates a worker against the schema and its card, and writes it.
   *
   * @param selfRegistered true for the worker registering itself: it gets a lease ({@code
   *     lease_ttl_seconds}, or the default TTL); false for an operator's static registration, which
   *     keeps a lease only when the body asks for one
   */
  public Versioned<WorkerInstance> putWorker(
      WorkerInstance submitted, long expectedRevision, boolean selfRegistered) {
    WorkerInstance w = submitted.withDefaults();
    if (selfRegistered && w.leaseTtlSeconds() == null) {
      w = w.withLeaseTtlSeconds(defaultLeaseTtlSeconds);
    }
    List<FieldError> errors = validator.validate(w);
    if (!errors.isEmpty()) {
      throw new ValidationException(errors);
    }
    String requested = w.model();
    ModelCard card =
        model(requested)
            .map(Versioned::value)
            .orElseThrow(
                () ->
                    new ValidationException(
                        "model", "unknown model '" + requested + "': register its card first"));
    w = w.withModel(card.name(), w.kvBlockSize() == null ? card.kvBlockSize() : w.kvBlockSize());
    List<String> reasons = mismatches(card, w);
    if (!reasons.isEmpty()) {
      throw new ConflictException("worker_card_mismatch", reasons);
    }
    long rev = store.putWorker(w, expectedRevision);
    return new Versioned<>(w, rev);
  }

  public long deleteWorker(String id, long expectedRevision) {
    return store.deleteWorker(id, expectedRevision);
  }

  /** Refreshes a worker's lease; {@link NotFoundException} when it is gone. */
  public void heartbeat(String id) {
    if (!store.keepAlive(id)) {
      throw new NotFoundException(
          "worker " + id + " is not registered (lease lapsed or removed): register again");
    }
  }

  /** Moves a worker to {@code ready} or {@code draining}. */
  public Versioned<WorkerInstance> setState(String id, WorkerState state, long expectedRevision) {
    Versioned<WorkerInstance> current =
        store.worker(id).orElseThrow(() -> new NotFoundException("worker " + id + " not found"));
    long expect =
        expectedRevision == RegistryStore.ANY_REVISION ? current.revision() : expectedRevision;
    WorkerInstance next = current.value().withState(state);
    long rev = store.putWorker(next, expect);
    return new Versioned<>(next, rev);
  }

  // --- API keys -------------------------------------------------------------------------------

  public Optional<Versioned<ApiKey>> apiKey(String name) {
    return store.apiKey(name);
  }

  /**
   * Validates and writes an API key record. Allowed models are not required to exist yet (keys are
   * often issued before a model is rolled out); the gateway matches them by name or alias.
   */
  public Versioned<ApiKey> putApiKey(ApiKey submitted, long expectedRevision) {
    ApiKey key = submitted.withDefaults();
    List<FieldError> errors = validator.validate(key);
    if (!errors.isEmpty()) {
      throw new ValidationException(errors);
    }
    long rev = store.putApiKey(key, expectedRevision);
    return new Versioned<>(key, rev);
  }

  public long deleteApiKey(String name, long expectedRevision) {
    return store.deleteApiKey(name, expectedRevision);
  }

  /** Why {@code w} cannot serve {@code card}; empty when it can. */
  static List<String> mismatches(ModelCard card, WorkerInstance w) {
    List<String> reasons = new ArrayList<>();
    if (w.kvBlockSize() != null && !w.kvBlockSize().equals(card.kvBlockSize())) {
      reasons.add(
          "worker '"
              + w.id()
              + "' reports kv_block_size "
              + w.kvBlockSize()
              + " but model '"
              + card.name()
              + "' uses "
              + card.kvBlockSize()
              + ": its block hashes would never match the router's");
    }
    if (w.dialect() != null && card.backend() != null && w.dialect() != card.backend()) {
      reasons.add(
          "worker '"
              + w.id()
              + "' speaks "
              + w.dialect().id()
              + " but model '"
              + card.name()
              + "' is served by "
              + card.backend().id());
    }
    if (w.servedModelName() != null && !card.answersTo(w.servedModelName())) {
      reasons.add(
          "worker '"
              + w.id()
              + "' serves model '"
              + w.servedModelName()
              + "', which is neither the name nor an alias of model '"
              + card.name()
              + "'");
    }
    return reasons;
  }
}
