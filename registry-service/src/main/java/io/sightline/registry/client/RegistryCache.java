package io.sightline.registry.client;

import io.sightline.registry.model.ApiKey;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.Versioned;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.store.Snapshot;
import io.sightline.registry.store.StoreEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet view shared by both client implementations: an immutable {@link View} swapped on every
 * change, so reads are lock-free and always see one consistent revision.
 *
 * <p>Mutations ({@link #apply}, {@link #replace}) must be called from one thread at a time (each
 * client funnels them through its own event thread); events at or below the current revision are
 * ignored, so a resumed watch that overlaps what was already applied is harmless.
 */
final class RegistryCache {
  private static final Logger LOG = LoggerFactory.getLogger(RegistryCache.class);

  private final List<RegistryListener> listeners = new CopyOnWriteArrayList<>();
  private volatile View view = View.EMPTY;

  /** One consistent picture of the fleet. */
  record View(
      long revision,
      Map<String, ModelCard> models,
      Map<String, String> aliases,
      Map<String, WorkerInstance> workers,
      Map<String, List<WorkerInstance>> byModel,
      Map<String, ApiKey> apiKeys) {
    static final View EMPTY = new View(0, Map.of(), Map.of(), Map.of(), Map.of(), Map.of());

    static View of(
        long revision,
        Map<String, ModelCard> models,
        Map<String, WorkerInstance> ws,
        Map<String, ApiKey> keys) {
      Map<String, String> aliases = new HashMap<>();
      for (ModelCard c : models.values()) {
        if (c.aliases() != null) {
          for (String a : c.aliases()) {
            aliases.putIfAbsent(a, c.name());
          }
        }
      }
      Map<String, List<WorkerInstance>> byModel = new HashMap<>();
      for (WorkerInstance w : ws.values()) {
        byModel.computeIfAbsent(w.model(), k -> new ArrayList<>()).add(w);
      }
      byModel.replaceAll((k, v) -> List.copyOf(v));
      return new View(
          revision,
          Collections.unmodifiableMap(new TreeMap<>(models)),
          Map.copyOf(aliases),
          Collections.unmodifiableMap(new TreeMap<>(ws)),
          Map.copyOf(byModel),
          Collections.unmodifiableMap(new TreeMap<>(keys)));
    }
  }

  View view() {
    return view;
  }

  List<ModelCard> models() {
    return List.copyOf(view.models().values());
  }

  Optional<ModelCard> model(String nameOrAlias) {
    if (nameOrAlias == null) {
      return Optional.empty();
    }
    View v = view;
    ModelCard c = v.models().get(nameOrAlias);
    if (c == null) {
      String name = v.aliases().get(nameOrAlias);
      c = name == null ? null : v.models().get(name);
    }
    return Optional.ofNullable(c);
  }

  List<WorkerInstance> workers(String nameOrAlias) {
    View v = view;
    return model(nameOrAlias)
        .map(c -> v.byModel().getOrDefault(c.name(), List.of()))
        .orElse(List.of());
  }

  List<WorkerInstance> workers() {
    return List.copyOf(view.workers().values());
  }

  Optional<WorkerInstance> worker(String id) {
    return Optional.ofNullable(view.workers().get(id));
  }

  List<ApiKey> apiKeys() {
    return List.copyOf(view.apiKeys().values());
  }

  long revision() {
    return view.revision();
  }

  AutoCloseable addListener(RegistryListener l) {
    listeners.add(Objects.requireNonNull(l));
    return () -> listeners.remove(l);
  }

  /** Applies watched changes; returns the number applied (older ones are skipped). */
  int apply(List<StoreEvent> events) {
    View v = view;
    Map<String, ModelCard> models = null;
    Map<String, WorkerInstance> workers = null;
    Map<String, ApiKey> keys = null;
    List<RegistryEvent> out = new ArrayList<>();
    long rev = v.revision();
    for (StoreEvent e : events) {
      if (e.revision() <= rev) {
        continue;
      }
      rev = e.revision();
      switch (e) {
        case StoreEvent.ModelPut p -> {
          models = models == null ? new HashMap<>(v.models()) : models;
          ModelCard old = models.put(p.card().name(), p.card());
          out.add(new RegistryEvent.ModelPut(p.card(), old, rev));
        }
        case StoreEvent.ModelDeleted d -> {
          models = models == null ? new HashMap<>(v.models()) : models;
          ModelCard old = models.remove(d.name());
          ModelCard gone = old != null ? old : d.previous();
          if (gone != null) {
            out.add(new RegistryEvent.ModelRemoved(gone, rev));
          }
        }
        case StoreEvent.WorkerPut p -> {
          workers = workers == null ? new HashMap<>(v.workers()) : workers;
          WorkerInstance old = workers.put(p.worker().id(), p.worker());
          out.add(new RegistryEvent.WorkerPut(p.worker(), old, rev));
        }
        case StoreEvent.WorkerDeleted d -> {
          workers = workers == null ? new HashMap<>(v.workers()) : workers;
          WorkerInstance old = workers.remove(d.id());
          WorkerInstance gone = old != null ? old : d.previous();
          if (gone != null) {
            out.add(new RegistryEvent.WorkerRemoved(gone, rev));
          }
        }
        case StoreEvent.ApiKeyPut p -> {
          keys = keys == null ? new HashMap<>(v.apiKeys()) : keys;
          ApiKey old = keys.put(p.key().name(), p.key());
          out.add(new RegistryEvent.ApiKeyPut(p.key(), old, rev));
        }
        case StoreEvent.ApiKeyDeleted d -> {
          keys = keys == null ? new HashMap<>(v.apiKeys()) : keys;
          ApiKey old = keys.remove(d.name());
          ApiKey gone = old != null ? old : d.previous();
          if (gone != null) {
            out.add(new RegistryEvent.ApiKeyRemoved(gone, rev));
          }
        }
      }
    }
    if (rev == v.revision()) {
      return 0;
    }
    view =
        View.of(
            rev,
            models == null ? v.models() : models,
            workers == null ? v.workers() : workers,
            keys == null ? v.apiKeys() : keys);
    emit(out);
    return out.size();
  }

  /** Replaces everything with a snapshot, emitting the differences and then {@code Resynced}. */
  void replace(Snapshot snapshot) {
    View v = view;
    Map<String, ModelCard> models = new HashMap<>();
    for (Versioned<ModelCard> c : snapshot.models()) {
      models.put(c.value().name(), c.value());
    }
    Map<String, WorkerInstance> workers = new HashMap<>();
    for (Versioned<WorkerInstance> w : snapshot.workers()) {
      workers.put(w.value().id(), w.value());
    }
    Map<String, ApiKey> keys = new HashMap<>();
    for (Versioned<ApiKey> k : snapshot.apiKeys()) {
      keys.put(k.value().name(), k.value());
    }
    long rev = snapshot.revision();
    List<RegistryEvent> out = new ArrayList<>();
    v.apiKeys()
        .forEach(
            (name, old) -> {
              if (!keys.containsKey(name)) {
                out.add(new RegistryEvent.ApiKeyRemoved(old, rev));
              }
            });
    keys.forEach(
        (name, k) -> {
          ApiKey old = v.apiKeys().get(name);
          if (!k.equals(old)) {
            out.add(new RegistryEvent.ApiKeyPut(k, old, rev));
          }
        });
    v.models()
        .forEach(
            (name, old) -> {
              if (!models.containsKey(name)) {
                out.add(new RegistryEvent.ModelRemoved(old, rev));
              }
            });
    v.workers()
        .forEach(
            (id, old) -> {
              if (!workers.containsKey(id)) {
                out.add(new RegistryEvent.WorkerRemoved(old, rev));
              }
            });
    models.forEach(
        (name, card) -> {
          ModelCard old = v.models().get(name);
          if (!card.equals(old)) {
            out.add(new RegistryEvent.ModelPut(card, old, rev));
          }
        });
    workers.forEach(
        (id, w) -> {
          WorkerInstance old = v.workers().get(id);
          if (!w.equals(old)) {
            out.add(new RegistryEvent.WorkerPut(w, old, rev));
          }
        });
    out.add(new RegistryEvent.Resynced(rev));
    view = View.of(rev, models, workers, keys);
    emit(out);
  }

  void emit(List<RegistryEvent> events) {
    for (RegistryEvent e : events) {
      for (RegistryListener l : listeners) {
        try {
          l.onEvent(e);
        } catch (RuntimeException ex) {
          LOG.warn("registry listener failed on {}", e, ex);
        }
      }
    }
  }
}
