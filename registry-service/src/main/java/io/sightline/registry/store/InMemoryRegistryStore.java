package io.sightline.registry.store;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.sightline.registry.model.ApiKey;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.RegistryJson;
import io.sightline.registry.model.Versioned;
import io.sightline.registry.model.WorkerInstance;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;

/**
 * The embedded default store: everything in one JVM, optionally persisted to a JSON file.
 *
 * <p>It imitates the etcd semantics the rest of the registry relies on (see {@link RegistryStore}):
 * a single monotonic revision bumped by every write, per-entry mod revisions, conditional writes,
 * leases that delete their worker when they lapse (checked by a sweeper every {@code
 * sweepInterval}, so expiry is observed within TTL + sweep interval), and a watch that can resume
 * from any revision still in the bounded event history ({@code historySize} events; older
 * resumptions get {@link StoreWatcher#onCompacted}, like etcd after compaction).
 *
 * <p>Persistence: when a file is given, every write rewrites it atomically (temp file + rename)
 * before it is acknowledged; it holds the revision, the cards and the <em>static</em> workers, and
 * is loaded on start. Leased workers are not persisted: after a restart their next heartbeat
 * answers "gone" and they register again, which is what happens with etcd when a lease lapses. The
 * revision is persisted on every write so it never goes backwards across restarts; the event
 * history is not, so watchers resuming across a restart get {@link StoreWatcher#onCompacted}. Watch
 * callbacks run on one dispatcher thread in revision order.
 */
public final class InMemoryRegistryStore implements RegistryStore {
  private final Object lock = new Object();
  private final TreeMap<String, Versioned<ModelCard>> models = new TreeMap<>();
  private final TreeMap<String, Versioned<WorkerInstance>> workers = new TreeMap<>();
  private final TreeMap<String, Versioned<ApiKey>> apiKeys = new TreeMap<>();
  private final Map<String, Long> leaseDeadlines = new LinkedHashMap<>();
  private final Deque<StoreEvent> history = new ArrayDeque<>();
  private final List<MemoryWatch> watches = new CopyOnWriteArrayList<>();
  private final int historySize;
  private final Path file;
  private final LongSupplier nanoClock;
  private final ExecutorService dispatcher;
  private final ScheduledExecutorService sweeper;
  private long revision;
  private long compactedThrough;
  private volatile boolean closed;

  /** A store with no persistence, 10 000 events of history and a 100 ms lease sweeper. */
  public InMemoryRegistryStore() {
    this(null, 10_000, Duration.ofMillis(100));
  }

  /**
   * @param file JSON file to persist cards and static workers to, or null for none
   * @param historySize events kept for resuming watches
   * @param sweepInterval how often lapsed leases are looked for
   */
  public InMemoryRegistryStore(Path file, int historySize, Duration sweepInterval) {
    this(file, historySize, sweepInterval, System::nanoTime);
  }

  InMemoryRegistryStore(Path file, int historySize, Duration sweepInterval, LongSupplier nanos) {
    if (historySize < 1) {
      throw new IllegalArgumentException("historySize must be positive");
    }
    this.file = file;
    this.historySize = historySize;
    this.nanoClock = nanos;
    this.dispatcher =
        Executors.newSingleThreadExecutor(
            Thread.ofPlatform().daemon().name("registry-mem-watch").factory());
    this.sweeper =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("registry-mem-leases").factory());
    if (file != null) {
      load(file);
    }
    long every = Math.max(10, sweepInterval.toMillis());
    sweeper.scheduleWithFixedDelay(this::expireLeases, every, every, TimeUnit.MILLISECONDS);
  }

  @Override
  public Snapshot snapshot() {
    synchronized (lock) {
      return new Snapshot(
          revision,
          new ArrayList<>(models.values()),
          new ArrayList<>(workers.values()),
          new ArrayList<>(apiKeys.values()));
    }
  }

  @Override
  public Optional<Versioned<ModelCard>> model(String name) {
    return get(models, name);
  }

  @Override
  public Optional<Versioned<WorkerInstance>> worker(String id) {
    return get(workers, id);
  }

  @Override
  public long putModel(ModelCard card, long expectedRevision) {
    return put(
        models,
        "model",
        card.name(),
        card,
        expectedRevision,
        rev -> new StoreEvent.ModelPut(card, rev));
  }

  @Override
  public long deleteModel(String name, long expectedRevision) {
    return delete(
        models,
        "model",
        name,
        expectedRevision,
        (old, rev) -> new StoreEvent.ModelDeleted(name, old, rev));
  }

  @Override
  public long putWorker(WorkerInstance worker, long expectedRevision) {
    synchronized (lock) {
      checkRevision("worker " + worker.id(), workers.get(worker.id()), expectedRevision);
      long rev = revision + 1;
      Versioned<WorkerInstance> old = workers.put(worker.id(), new Versioned<>(worker, rev));
      Long oldDeadline = leaseDeadlines.remove(worker.id());
      if (worker.leased()) {
        leaseDeadlines.put(worker.id(), deadline(worker));
      }
      persistOrRollback(
          () -> {
            restore(workers, worker.id(), old);
            leaseDeadlines.remove(worker.id());
            if (oldDeadline != null) {
              leaseDeadlines.put(worker.id(), oldDeadline);
            }
          });
      revision = rev;
      publish(new StoreEvent.WorkerPut(worker, rev));
      return rev;
    }
  }

  @Override
  public long deleteWorker(String id, long expectedRevision) {
    synchronized (lock) {
      Versioned<WorkerInstance> old = existing(workers, "worker", id, expectedRevision);
      return removeWorker(id, old);
    }
  }

  @Override
  public Optional<Versioned<ApiKey>> apiKey(String name) {
    return get(apiKeys, name);
  }

  @Override
  public long putApiKey(ApiKey key, long expectedRevision) {
    return put(
        apiKeys,
        "api key",
        key.name(),
        key,
        expectedRevision,
        rev -> new StoreEvent.ApiKeyPut(key, rev));
  }

  @Override
  public long deleteApiKey(String name, long expectedRevision) {
    return delete(
        apiKeys,
        "api key",
        name,
        expectedRevision,
        (old, rev) -> new StoreEvent.ApiKeyDeleted(name, old, rev));
  }

  @Override
  public boolean keepAlive(String workerId) {
    synchronized (lock) {
      Versioned<WorkerInstance> current = workers.get(workerId);
      if (current == null) {
        return false;
      }
      if (current.value().leased()) {
        leaseDeadlines.put(workerId, deadline(current.value()));
      }
      return true;
    }
  }

  @Override
  public StoreWatch watch(long fromRevision, StoreWatcher watcher) {
    synchronized (lock) {
      MemoryWatch watch = new MemoryWatch(watcher);
      long from = Math.max(1, fromRevision);
      if (from <= compactedThrough) {
        long compacted = compactedThrough;
        dispatcher.execute(() -> watcher.onCompacted(compacted));
        return () -> {};
      }
      List<StoreEvent> replay = new ArrayList<>();
      for (StoreEvent e : history) {
        if (e.revision() >= from) {
          replay.add(e);
        }
      }
      if (!replay.isEmpty()) {
        dispatcher.execute(() -> watch.deliver(replay));
      }
      watches.add(watch);
      return watch;
    }
  }

  @Override
  public StoreHealth health() {
    Map<String, Object> details = new LinkedHashMap<>();
    synchronized (lock) {
      details.put("store", "memory");
      details.put("file", file == null ? "none" : file.toString());
      details.put("revision", revision);
      details.put("models", models.size());
      details.put("workers", workers.size());
      details.put("api_keys", apiKeys.size());
    }
    return new StoreHealth(!closed, details);
  }

  @Override
  public void close() {
    closed = true;
    sweeper.shutdownNow();
    dispatcher.shutdown();
    watches.clear();
  }

  // --- internals ------------------------------------------------------------------------------

  /** The event for deleting an entry whose last value was {@code previous}, at {@code revision}. */
  @FunctionalInterface
  private interface Deleted<T> {
    StoreEvent event(T previous, long revision);
  }

  private <T> Optional<Versioned<T>> get(Map<String, Versioned<T>> map, String key) {
    synchronized (lock) {
      return Optional.ofNullable(map.get(key));
    }
  }

  /** A conditional put of an entry without a lease (cards, API keys). */
  private <T> long put(
      Map<String, Versioned<T>> map,
      String noun,
      String key,
      T value,
      long expectedRevision,
      LongFunction<StoreEvent> event) {
    synchronized (lock) {
      checkRevision(noun + " " + key, map.get(key), expectedRevision);
      long rev = revision + 1;
      Versioned<T> old = map.put(key, new Versioned<>(value, rev));
      persistOrRollback(() -> restore(map, key, old));
      revision = rev;
      publish(event.apply(rev));
      return rev;
    }
  }

  /** A conditional delete of an entry without a lease (cards, API keys). */
  private <T> long delete(
      Map<String, Versioned<T>> map,
      String noun,
      String key,
      long expectedRevision,
      Deleted<T> event) {
    synchronized (lock) {
      Versioned<T> old = existing(map, noun, key, expectedRevision);
      map.remove(key);
      persistOrRollback(() -> map.put(key, old));
      long rev = ++revision;
      publish(event.event(old.value(), rev));
      return rev;
    }
  }

  /** The entry under {@code key}, which must exist at {@code expectedRevision}; call under lock. */
  private static <T> Versioned<T> existing(
      Map<String, Versioned<T>> map, String noun, String key, long expectedRevision) {
    Versioned<T> old = map.get(key);
    if (old == null) {
      throw new NotFoundException(noun + " " + key + " not found");
    }
    checkRevision(noun + " " + key, old, expectedRevision);
    return old;
  }

  private long deadline(WorkerInstance w) {
    return nanoClock.getAsLong() + TimeUnit.SECONDS.toNanos(w.leaseTtlSeconds());
  }

  private void expireLeases() {
    try {
      synchronized (lock) {
        long now = nanoClock.getAsLong();
        List<String> lapsed = new ArrayList<>();
        leaseDeadlines.forEach(
            (id, deadline) -> {
              if (now - deadline >= 0) {
                lapsed.add(id);
              }
            });
        for (String id : lapsed) {
          Versioned<WorkerInstance> old = workers.get(id);
          if (old != null) {
            removeWorker(id, old);
          } else {
            leaseDeadlines.remove(id);
          }
        }
      }
    } catch (RuntimeException e) {
      // never let the sweeper die: a persistence failure is retried on the next sweep
    }
  }

  private long removeWorker(String id, Versioned<WorkerInstance> old) {
    workers.remove(id);
    Long oldDeadline = leaseDeadlines.remove(id);
    persistOrRollback(
        () -> {
          workers.put(id, old);
          if (oldDeadline != null) {
            leaseDeadlines.put(id, oldDeadline);
          }
        });
    long rev = ++revision;
    publish(new StoreEvent.WorkerDeleted(id, old.value(), rev));
    return rev;
  }

  private static <T> void restore(Map<String, Versioned<T>> map, String key, Versioned<T> old) {
    if (old == null) {
      map.remove(key);
    } else {
      map.put(key, old);
    }
  }

  private static void checkRevision(String key, Versioned<?> current, long expected) {
    long actual = current == null ? 0 : current.revision();
    if (expected == ANY_REVISION) {
      return;
    }
    if (expected < ANY_REVISION) {
      throw new IllegalArgumentException("invalid expected revision " + expected);
    }
    if (actual != expected) {
      throw new RevisionConflictException(key, expected, actual);
    }
  }

  private void publish(StoreEvent event) {
    history.addLast(event);
    while (history.size() > historySize) {
      compactedThrough = history.removeFirst().revision();
    }
    List<StoreEvent> batch = List.of(event);
    for (MemoryWatch w : watches) {
      dispatcher.execute(() -> w.deliver(batch));
    }
  }

  private final class MemoryWatch implements StoreWatch {
    private final StoreWatcher watcher;
    private volatile boolean open = true;

    MemoryWatch(StoreWatcher watcher) {
      this.watcher = watcher;
    }

    void deliver(List<StoreEvent> events) {
      if (open && !closed) {
        try {
          watcher.onEvents(events);
        } catch (RuntimeException e) {
          // a failing watcher must not stop delivery to the others
        }
      }
    }

    @Override
    public void close() {
      open = false;
      watches.remove(this);
    }
  }

  // --- persistence ----------------------------------------------------------------------------

  /** The persisted form: revision, cards and static workers with their revisions. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record FileImage(
      long revision,
      List<Entry<ModelCard>> models,
      List<Entry<WorkerInstance>> workers,
      List<Entry<ApiKey>> apiKeys) {}

  /** One persisted entry. */
  record Entry<T>(long revision, T value) {}

  private void persistOrRollback(Runnable rollback) {
    if (file == null) {
      return;
    }
    List<Entry<ModelCard>> m =
        models.values().stream().map(v -> new Entry<>(v.revision(), v.value())).toList();
    List<Entry<WorkerInstance>> w =
        workers.values().stream()
            .filter(v -> !v.value().leased())
            .sorted(Comparator.comparing(v -> v.value().id()))
            .map(v -> new Entry<>(v.revision(), v.value()))
            .toList();
    try {
      List<Entry<ApiKey>> k =
          apiKeys.values().stream().map(v -> new Entry<>(v.revision(), v.value())).toList();
      write(new FileImage(revision + 1, m, w, k));
    } catch (IOException e) {
      rollback.run();
      throw new StoreUnavailableException("cannot persist registry to " + file + ": " + e, e);
    }
  }

  private void write(FileImage image) throws IOException {
    ObjectMapper mapper = RegistryJson.mapper();
    Path dir = file.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
    try {
      Files.write(tmp, mapper.writerWithDefaultPrettyPrinter().writeValueAsBytes(image));
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private void load(Path path) {
    if (!Files.exists(path)) {
      return;
    }
    try {
      FileImage image = RegistryJson.mapper().readValue(path.toFile(), FileImage.class);
      for (Entry<ModelCard> e : image.models()) {
        models.put(e.value().name(), new Versioned<>(e.value(), e.revision()));
      }
      for (Entry<WorkerInstance> e : image.workers()) {
        workers.put(e.value().id(), new Versioned<>(e.value(), e.revision()));
      }
      if (image.apiKeys() != null) {
        for (Entry<ApiKey> e : image.apiKeys()) {
          apiKeys.put(e.value().name(), new Versioned<>(e.value(), e.revision()));
        }
      }
      revision = image.revision();
      // History before the restart is gone: watchers resuming from older revisions must resync.
      compactedThrough = revision;
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalStateException(
          "cannot read registry file " + path + ": " + e.getMessage(), e);
    }
  }
}
