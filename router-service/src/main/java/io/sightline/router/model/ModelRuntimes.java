package io.sightline.router.model;

import com.fasterxml.jackson.databind.JsonNode;
import io.sightline.prompt.hf.HfModel;
import io.sightline.prompt.hf.HfModelException;
import io.sightline.prompt.hf.HfModels;
import io.sightline.registry.client.RegistryClient;
import io.sightline.registry.client.RegistryEvent;
import io.sightline.registry.model.HfSource;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.routing.event.KvEvent;
import io.sightline.routing.expansion.MmScheme;
import io.sightline.routing.index.ApplyOutcome;
import io.sightline.routing.index.IndexConfig;
import io.sightline.routing.index.KvIndex;
import io.sightline.routing.index.StoredBlockConverter;
import io.sightline.routing.index.WorkerKey;
import io.sightline.routing.multimodal.spec.ModelProcessorSpec;
import io.sightline.routing.multimodal.spec.ProcessorSpecs;
import io.sightline.routing.multimodal.spec.SpecResolution;
import io.sightline.routing.prompt.ApproximateEncoder;
import io.sightline.routing.prompt.ImageTokenEstimator;
import io.sightline.routing.prompt.PromptEncoder;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.InflaterInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's per-model state, built from the registry's model cards and kept current by the
 * registry watch: one {@link ModelRuntime} per card, loaded on first use (or when the card appears)
 * and reloaded in the background when the card changes — the old runtime keeps serving until the
 * new one is ready, and the KV index is carried over when the block layout is unchanged.
 *
 * <p>Failure policy (issue 7): a model without a card, without tokenizer files, without a
 * recognised processor, or whose files fail to load still routes — text-only or approximate — and
 * the reason is counted ({@link #fallbackListener}) and shown in every explanation. Nothing here
 * throws on the routing path.
 *
 * <p>Also the {@link KvEventSink} of event ingestion: an event is routed by its worker id to the
 * worker's model's index, recorded in that model's {@link EventJournal}, and the highest stream
 * sequence is tracked for snapshots ({@link #snapshot()}/{@link #restore(byte[])}).
 */
public final class ModelRuntimes implements KvEventSink, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ModelRuntimes.class);
  private static final int SNAPSHOT_MAGIC = 0x534c4958; // "SLIX"
  private static final int SNAPSHOT_VERSION = 1;

  /** Tunables. */
  public record Options(
      IndexConfig indexConfig, boolean journal, Path hfCacheDir, int defaultBlockSize) {}

  private final RegistryClient registry;
  private final Options options;
  private final ConcurrentHashMap<String, ModelRuntime> runtimes = new ConcurrentHashMap<>();
  private final ExecutorService loader =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "sightline-model-loader");
            t.setDaemon(true);
            return t;
          });
  private final AtomicLong lastStreamSequence = new AtomicLong(-1);
  // apply() holds the read lock (workers apply concurrently); snapshot() the write lock, so the
  // journals and the stream sequence it records are consistent with each other.
  private final java.util.concurrent.locks.ReentrantReadWriteLock snapshotLock =
      new java.util.concurrent.locks.ReentrantReadWriteLock();
  private final LongAdder unknownWorkerEvents = new LongAdder();
  private final LongAdder reloads = new LongAdder();
  private volatile BiConsumer<String, String> fallbackListener = (model, reason) -> {};
  private AutoCloseable subscription;

  public ModelRuntimes(RegistryClient registry, Options options) {
    this.registry = registry;
    this.options = options;
  }

  /** Called once per runtime (re)load that ends degraded: (model, reason). */
  public void fallbackListener(BiConsumer<String, String> listener) {
    this.fallbackListener = listener == null ? (m, r) -> {} : listener;
  }

  /** Subscribes to registry changes and preloads every known card in the background. */
  public synchronized void start() {
    if (subscription != null) {
      return;
    }
    subscription = registry.addListener(this::onRegistryEvent);
    for (ModelCard card : registry.models()) {
      loader.submit(() -> forModel(card.name()));
    }
  }

  /**
   * The runtime for a model name or alias: loaded synchronously on first use (tokenizer loading
   * takes ~1 s once), the text-only runtime for a model without card.
   */
  public ModelRuntime forModel(String nameOrAlias) {
    Optional<ModelCard> card = registry.model(nameOrAlias);
    if (card.isEmpty()) {
      ModelRuntime known = runtimes.get(nameOrAlias);
      if (known != null) {
        return known;
      }
      ModelRuntime fresh = unknown(nameOrAlias, null);
      // keep it only for a name workers actually serve: arbitrary names must not grow the map
      return registry.workers(nameOrAlias).isEmpty()
          ? fresh
          : runtimes.computeIfAbsent(nameOrAlias, n -> fresh);
    }
    String name = card.get().name();
    ModelRuntime rt = runtimes.get(name);
    if (rt != null && rt.card() != null) {
      return rt;
    }
    synchronized (this) {
      rt = runtimes.get(name);
      if (rt != null && rt.card() != null) {
        return rt;
      }
      ModelRuntime loaded = load(card.get(), rt);
      runtimes.put(name, loaded);
      return loaded;
    }
  }

  /** The loaded runtime of a card name, if any (no loading). */
  public Optional<ModelRuntime> loaded(String name) {
    return Optional.ofNullable(runtimes.get(name));
  }

  /** All loaded runtimes. */
  public List<ModelRuntime> all() {
    return List.copyOf(runtimes.values());
  }

  /** Card reloads done so far. */
  public long reloads() {
    return reloads.sum();
  }

  /** Events dropped because their worker is not registered. */
  public long unknownWorkerEvents() {
    return unknownWorkerEvents.sum();
  }

  private void onRegistryEvent(RegistryEvent event) {
    switch (event) {
      case RegistryEvent.ModelPut put -> {
        ModelRuntime current = runtimes.get(put.card().name());
        if (current != null && current.card() != null && current.card().equals(put.card())) {
          return;
        }
        loader.submit(
            () -> {
              synchronized (this) {
                ModelRuntime prev = runtimes.get(put.card().name());
                ModelRuntime next = load(put.card(), prev);
                runtimes.put(put.card().name(), next);
                reloads.increment();
                log.info(
                    "model {} (re)loaded: mode={} scheme={} blockSize={}{}",
                    next.name(),
                    next.defaultMode(),
                    next.scheme(),
                    next.blockSize(),
                    next.fallbackReason() == null ? "" : " fallback=" + next.fallbackReason());
              }
            });
      }
      case RegistryEvent.ModelRemoved removed -> runtimes.remove(removed.card().name());
      case RegistryEvent.WorkerRemoved removed -> {
        WorkerInstance w = removed.worker();
        ModelRuntime rt = runtimes.get(w.model());
        int ranks = w.dataParallelSize() == null ? 1 : w.dataParallelSize();
        if (rt != null) {
          for (int r = 0; r < ranks; r++) {
            rt.index().apply(new KvEvent.Cleared(w.id(), r, -1));
            rt.journal().removeWorker(new WorkerKey(w.id(), r));
          }
        }
      }
      default -> {}
    }
  }

  // ------------------------------------------------------------------------------ loading

  private ModelRuntime unknown(String name, ModelRuntime previous) {
    int bs = options.defaultBlockSize();
    for (WorkerInstance w : registry.workers(name)) {
      if (w.kvBlockSize() != null) {
        bs = w.kvBlockSize();
        break;
      }
    }
    fallbackListener.accept(name, "unknown_model");
    KvIndex index = reuseOrNew(previous, bs, MmScheme.OFF, -1);
    return new ModelRuntime(
        name,
        null,
        bs,
        MmScheme.OFF,
        Optional.empty(),
        -1,
        new ApproximateEncoder(),
        ImageTokenEstimator.forFamily(""),
        false,
        "unknown_model",
        "no model card in the registry",
        index,
        previous != null ? previous.journal() : new EventJournal());
  }

  /** Builds the runtime for {@code rawCard}; never throws (degrades and says why). */
  ModelRuntime load(ModelCard rawCard, ModelRuntime previous) {
    ModelCard card = rawCard.withDefaults();
    int bs = card.kvBlockSize();
    String reason = null;
    String detail = null;
    HfModel hf = null;
    Path dir = null;
    try {
      dir = materialise(card);
    } catch (IOException | RuntimeException e) {
      reason = "load_failed";
      detail = "cannot read hf files: " + e.getMessage();
    }
    if (dir != null) {
      try {
        hf = HfModels.load(dir);
      } catch (HfModelException | RuntimeException e) {
        reason = "load_failed";
        detail = "tokenizer/template load failed: " + e.getMessage();
      }
    } else if (reason == null) {
      reason = "no_tokenizer";
      detail = "the card has no hf files";
    }
    PromptEncoder encoder = hf != null ? hf.promptEncoder() : new ApproximateEncoder();
    boolean exact = hf != null && hf.promptEncoder().exact();
    if (hf != null && !exact) {
      reason = "no_tokenizer";
      detail = "no tokenizer.json in " + dir;
    }
    Optional<ModelProcessorSpec> spec = Optional.empty();
    MmScheme scheme = card.multimodal() ? card.mmScheme() : MmScheme.OFF;
    if (card.multimodal() && dir != null) {
      try {
        SpecResolution res = ProcessorSpecs.resolve(dir);
        spec = res.spec();
        if (spec.isEmpty() && reason == null) {
          reason = "no_processor_spec";
          detail = res.reason();
        }
      } catch (RuntimeException e) {
        if (reason == null) {
          reason = "no_processor_spec";
          detail = "processor spec failed: " + e.getMessage();
        }
      }
    }
    int imageTokenId = spec.map(ModelProcessorSpec::placeholderTokenId).orElse(-1);
    // Without a spec the exact path cannot expand images; approximate mode still can (estimates)
    // but engine events then never match, so Gen-2 needs the id or the scheme is off.
    if (spec.isEmpty() && exact) {
      scheme = MmScheme.OFF;
    }
    ImageTokenEstimator estimator =
        hf != null
            ? hf.imageTokenEstimator()
            : ImageTokenEstimator.forFamily(card.processorFamily());
    KvIndex index = reuseOrNew(previous, bs, scheme, imageTokenId);
    EventJournal journal =
        previous != null && index == previous.index() ? previous.journal() : new EventJournal();
    if (reason != null) {
      fallbackListener.accept(card.name(), reason);
      log.warn("model {} routes degraded ({}): {}", card.name(), reason, detail);
    }
    return new ModelRuntime(
        card.name(),
        rawCard,
        bs,
        scheme,
        spec,
        imageTokenId,
        encoder,
        estimator,
        exact,
        reason,
        detail,
        index,
        journal);
  }

  private KvIndex reuseOrNew(ModelRuntime previous, int bs, MmScheme scheme, int imageTokenId) {
    if (previous != null
        && previous.layoutKey().equals(new ModelRuntime.LayoutKey(bs, scheme, imageTokenId))) {
      return previous.index();
    }
    return new KvIndex(
        new StoredBlockConverter(bs, scheme, imageTokenId),
        options.indexConfig(),
        System::nanoTime);
  }

  /** The card's HF directory: its path, or its inline files written under the cache dir. */
  private Path materialise(ModelCard card) throws IOException {
    HfSource hf = card.hf();
    if (hf == null) {
      return null;
    }
    if (hf.path() != null) {
      return Path.of(hf.path());
    }
    if (hf.files() == null || hf.files().isEmpty()) {
      return null;
    }
    StringBuilder fingerprint = new StringBuilder();
    hf.files().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e -> fingerprint.append(e.getKey()).append('\0').append(e.getValue()).append('\0'));
    String id =
        HexFormat.of()
            .toHexDigits(
                io.sightline.routing.multimodal.MmHashes.ofBytes(
                    fingerprint.toString().getBytes(StandardCharsets.UTF_8)));
    Path dir = options.hfCacheDir().resolve(safe(card.name()) + "-" + id);
    if (!Files.isDirectory(dir)) {
      Path tmp = Files.createTempDirectory(options.hfCacheDir(), "hf-");
      for (Map.Entry<String, JsonNode> f : hf.files().entrySet()) {
        String fileName = Path.of(f.getKey()).getFileName().toString();
        JsonNode v = f.getValue();
        String text = v.isTextual() ? v.asText() : v.toString();
        Files.writeString(tmp.resolve(fileName), text);
      }
      try {
        Files.move(tmp, dir);
      } catch (IOException raced) {
        // another loader won; use its copy
      }
    }
    return dir;
  }

  private static String safe(String name) {
    return name.replaceAll("[^A-Za-z0-9._-]", "_");
  }

  // ------------------------------------------------------------------------------ events

  @Override
  public ApplyOutcome apply(KvEvent event, long streamSequence) {
    Optional<WorkerInstance> worker = registry.worker(event.workerId());
    if (worker.isEmpty()) {
      unknownWorkerEvents.increment();
      advance(streamSequence);
      return ApplyOutcome.REJECTED;
    }
    ModelRuntime rt = forModel(worker.get().model());
    snapshotLock.readLock().lock();
    try {
      ApplyOutcome outcome = rt.index().apply(event);
      if (options.journal() && outcome == ApplyOutcome.APPLIED) {
        rt.journal().record(event);
      }
      advance(streamSequence);
      return outcome;
    } finally {
      snapshotLock.readLock().unlock();
    }
  }

  private void advance(long streamSequence) {
    if (streamSequence >= 0) {
      lastStreamSequence.accumulateAndGet(streamSequence, Math::max);
    }
  }

  @Override
  public void resetWorker(String workerId, int dpRank) {
    KvEvent.Cleared cleared = new KvEvent.Cleared(workerId, dpRank, -1);
    for (ModelRuntime rt : runtimes.values()) {
      rt.index().apply(cleared);
      rt.journal().removeWorker(new WorkerKey(workerId, dpRank));
    }
  }

  @Override
  public long lastStreamSequence() {
    return lastStreamSequence.get();
  }

  // ------------------------------------------------------------------------------ snapshots

  /**
   * The journals of every model (deflated), with the stream sequence they reflect exactly: event
   * application pauses while the journals are copied, so a replica restoring it and replaying the
   * stream after that sequence applies every event once.
   */
  public Snapshot snapshot() throws IOException {
    long seq;
    List<ModelRuntime> all = all();
    List<List<KvEvent.Stored>> dumps = new java.util.ArrayList<>(all.size());
    snapshotLock.writeLock().lock();
    try {
      seq = lastStreamSequence.get();
      for (ModelRuntime rt : all) {
        dumps.add(rt.journal().dump());
      }
    } finally {
      snapshotLock.writeLock().unlock();
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(new DeflaterOutputStream(bytes))) {
      out.writeInt(SNAPSHOT_MAGIC);
      out.writeInt(SNAPSHOT_VERSION);
      out.writeLong(seq);
      out.writeInt(all.size());
      for (int i = 0; i < all.size(); i++) {
        out.writeUTF(all.get(i).name());
        EventJournal.write(dumps.get(i), out);
      }
    }
    return new Snapshot(seq, bytes.toByteArray());
  }

  /** A serialised snapshot and the stream sequence it reflects. */
  public record Snapshot(long streamSequence, byte[] data) {}

  /**
   * Applies a snapshot written by {@link #snapshot()} to this (normally empty) router and returns
   * the stream sequence to resume after.
   *
   * @throws IOException when the data is not a snapshot of a known version
   */
  public long restore(byte[] data) throws IOException {
    try (DataInputStream in =
        new DataInputStream(new InflaterInputStream(new ByteArrayInputStream(data)))) {
      if (in.readInt() != SNAPSHOT_MAGIC) {
        throw new IOException("not a Sightline index snapshot");
      }
      int version = in.readInt();
      if (version != SNAPSHOT_VERSION) {
        throw new IOException("unsupported snapshot version " + version);
      }
      long seq = in.readLong();
      int models = in.readInt();
      if (models < 0 || models > 100_000) {
        throw new IOException("bad model count " + models);
      }
      for (int m = 0; m < models; m++) {
        String name = in.readUTF();
        List<KvEvent.Stored> events = EventJournal.readFrom(in, 50_000_000);
        ModelRuntime rt = forModel(name);
        for (KvEvent.Stored e : events) {
          if (rt.index().apply(e) == ApplyOutcome.APPLIED && options.journal()) {
            rt.journal().record(e);
          }
        }
      }
      lastStreamSequence.accumulateAndGet(seq, Math::max);
      return seq;
    }
  }

  @Override
  public void close() {
    loader.shutdownNow();
    if (subscription != null) {
      try {
        subscription.close();
      } catch (Exception e) {
        log.debug("listener close failed", e);
      }
    }
  }
}
