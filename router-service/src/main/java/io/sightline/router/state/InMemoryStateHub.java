package io.sightline.router.state;

import io.sightline.routing.index.WorkerKey;
import io.sightline.routing.selection.WorkerLoad;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The embedded default of the replicated router state: the same contracts as {@link
 * RedisStateBackend}, held in this JVM. Several replicas (e.g. tests, or a standalone app running
 * two routers) attach to one hub and see each other exactly as they would through Redis, including
 * TTL expiry of a replica that stops syncing.
 */
public final class InMemoryStateHub implements StateBackend {
  private record Published(Map<WorkerKey, WorkerLoad> totals, long expiresAt) {}

  private final ConcurrentHashMap<String, Published> loads = new ConcurrentHashMap<>();
  private final List<Prediction> predictionLog = new ArrayList<>();
  private final int predictionLogLimit;
  private long predictionBase; // sequence number of predictionLog.get(0)
  private final ConcurrentHashMap<String, IndexSnapshot> snapshots = new ConcurrentHashMap<>();
  private final LongSupplier clock;

  public InMemoryStateHub() {
    this(10_000, System::currentTimeMillis);
  }

  public InMemoryStateHub(int predictionLogLimit, LongSupplier clock) {
    this.predictionLogLimit = predictionLogLimit;
    this.clock = clock;
  }

  @Override
  public SharedLoad load(String replicaId, long ttlMillis) {
    return new HubLoad(replicaId, ttlMillis);
  }

  @Override
  public PredictionStore predictions(String replicaId) {
    return new HubPredictions(replicaId);
  }

  @Override
  public SnapshotStore snapshots() {
    return new SnapshotStore() {
      @Override
      public void save(IndexSnapshot snapshot) {
        snapshots.put(snapshot.replicaId(), snapshot);
      }

      @Override
      public Optional<IndexSnapshot> newest() {
        return snapshots.values().stream()
            .max(Comparator.comparingLong(IndexSnapshot::streamSequence));
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public String describe() {
    return "in-memory";
  }

  @Override
  public void close() {}

  private final class HubLoad implements SharedLoad {
    private final String replicaId;
    private final long ttlMillis;
    private volatile Map<WorkerKey, WorkerLoad> others = Map.of();

    HubLoad(String replicaId, long ttlMillis) {
      this.replicaId = replicaId;
      this.ttlMillis = ttlMillis;
    }

    @Override
    public void sync(Map<WorkerKey, WorkerLoad> local) {
      long now = clock.getAsLong();
      loads.put(replicaId, new Published(Map.copyOf(local), now + ttlMillis));
      Map<WorkerKey, WorkerLoad> sum = new HashMap<>();
      loads.forEach(
          (id, p) -> {
            if (!id.equals(replicaId) && p.expiresAt() > now) {
              p.totals().forEach((k, v) -> sum.merge(k, v, WorkerLoad::plus));
            }
          });
      loads.values().removeIf(p -> p.expiresAt() <= now);
      others = sum;
    }

    @Override
    public Map<WorkerKey, WorkerLoad> others() {
      return others;
    }

    @Override
    public void close() {
      loads.remove(replicaId);
    }
  }

  private final class HubPredictions implements PredictionStore {
    private final String replicaId;
    private long next; // next sequence to read

    HubPredictions(String replicaId) {
      this.replicaId = replicaId;
      synchronized (predictionLog) {
        this.next = predictionBase + predictionLog.size();
      }
    }

    @Override
    public void publish(Prediction prediction) {
      synchronized (predictionLog) {
        predictionLog.add(prediction);
        if (predictionLog.size() > predictionLogLimit) {
          int drop = predictionLog.size() - predictionLogLimit;
          predictionLog.subList(0, drop).clear();
          predictionBase += drop;
        }
      }
    }

    @Override
    public List<Prediction> pollOthers() {
      List<Prediction> out = new ArrayList<>();
      synchronized (predictionLog) {
        long from = Math.max(next, predictionBase);
        for (long s = from; s < predictionBase + predictionLog.size(); s++) {
          Prediction p = predictionLog.get((int) (s - predictionBase));
          if (!p.replicaId().equals(replicaId)) {
            out.add(p);
          }
        }
        next = predictionBase + predictionLog.size();
      }
      return out;
    }

    @Override
    public void close() {}
  }
}
