package io.sightline.registry.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import io.sightline.registry.model.ApiKey;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.RegistryJson;
import io.sightline.registry.model.Versioned;
import io.sightline.registry.model.WorkerInstance;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RegistryStore} on etcd v3 through jetcd (tested against etcd 3.4, see java-stack.md §3).
 *
 * <p>Layout under the configured prefix (default {@code /sightline/registry}): {@code
 * <prefix>/models/<name>}, {@code <prefix>/workers/<id>} and {@code <prefix>/apikeys/<name>}, each
 * holding the JSON of one card, worker or API key record. This mirrors Dynamo's discovery, where
 * each instance's card is a key bound to the worker's lease (dynamo.md §9):
 *
 * <ul>
 *   <li>revisions are etcd's: a snapshot is one prefix range read (consistent at its header
 *       revision), entry revisions are {@code mod_revision}s, and conditional writes are
 *       transactions comparing {@code version == 0} (create-only) or {@code mod_revision};
 *   <li>a leased worker gets its own lease ({@code grant(ttl)}) and its key is put with it, so etcd
 *       deletes the key when the lease lapses; {@link #keepAlive} is one {@code keepAliveOnce} on
 *       the lease id read back from the key;
 *   <li>watches are one prefix watch from a revision with {@code prev_kv} so deletions (including
 *       lease expiry) carry the last value; compaction is reported through {@link
 *       StoreWatcher#onCompacted}.
 * </ul>
 *
 * Every call is bounded by {@code requestTimeout}; the client is built with {@code
 * waitForReady(false)} so calls fail fast (as {@link StoreUnavailableException}) while etcd is down
 * instead of queueing.
 */
public final class EtcdRegistryStore implements RegistryStore {
  private static final Logger LOG = LoggerFactory.getLogger(EtcdRegistryStore.class);
  private static final String MODELS = "/models/";
  private static final String WORKERS = "/workers/";
  private static final String API_KEYS = "/apikeys/";

  private final Client client;
  private final boolean ownsClient;
  private final String prefix;
  private final Duration timeout;
  private final String endpoints;
  private final ObjectMapper json = RegistryJson.mapper();

  /**
   * Connects to {@code endpoints} (comma-separated {@code http://host:port}).
   *
   * @param prefix key prefix without trailing slash, e.g. {@code /sightline/registry}
   */
  public EtcdRegistryStore(String endpoints, String prefix, Duration requestTimeout) {
    this(
        Client.builder()
            .endpoints(endpoints.split("\\s*,\\s*"))
            .waitForReady(false)
            .connectTimeout(Duration.ofSeconds(2))
            // etcd's --grpc-keepalive-min-time is 5 s; pinging more often earns GOAWAY
            // too_many_pings
            .keepaliveTime(Duration.ofSeconds(30))
            .keepaliveTimeout(Duration.ofSeconds(10))
            .build(),
        true,
        endpoints,
        prefix,
        requestTimeout);
  }

  /** Uses an existing jetcd client (not closed by {@link #close()}). */
  public EtcdRegistryStore(Client client, String prefix, Duration requestTimeout) {
    this(client, false, "(shared client)", prefix, requestTimeout);
  }

  private EtcdRegistryStore(
      Client client, boolean owns, String endpoints, String prefix, Duration timeout) {
    if (prefix == null || prefix.isBlank() || prefix.endsWith("/")) {
      throw new IllegalArgumentException(
          "etcd prefix must be non-empty and not end with '/': '" + prefix + "'");
    }
    this.client = client;
    this.ownsClient = owns;
    this.endpoints = endpoints;
    this.prefix = prefix;
    this.timeout = timeout;
  }

  /** The key prefix in use. */
  public String prefix() {
    return prefix;
  }

  @Override
  public Snapshot snapshot() {
    GetResponse r =
        await(
            client
                .getKVClient()
                .get(bytes(prefix + "/"), GetOption.builder().isPrefix(true).build()),
            "snapshot");
    List<Versioned<ModelCard>> models = new ArrayList<>();
    List<Versioned<WorkerInstance>> workers = new ArrayList<>();
    List<Versioned<ApiKey>> keys = new ArrayList<>();
    for (KeyValue kv : r.getKvs()) {
      String key = kv.getKey().toString(StandardCharsets.UTF_8);
      if (key.startsWith(prefix + MODELS)) {
        decode(kv, ModelCard.class)
            .ifPresent(c -> models.add(new Versioned<>(c, kv.getModRevision())));
      } else if (key.startsWith(prefix + WORKERS)) {
        decode(kv, WorkerInstance.class)
            .ifPresent(w -> workers.add(new Versioned<>(w, kv.getModRevision())));
      } else if (key.startsWith(prefix + API_KEYS)) {
        decode(kv, ApiKey.class).ifPresent(k -> keys.add(new Versioned<>(k, kv.getModRevision())));
      }
    }
    return new Snapshot(r.getHeader().getRevision(), models, workers, keys);
  }

  @Override
  public Optional<Versioned<ModelCard>> model(String name) {
    return getOne(modelKey(name), ModelCard.class);
  }

  @Override
  public Optional<Versioned<WorkerInstance>> worker(String id) {
    return getOne(workerKey(id), WorkerInstance.class);
  }

  @Override
  public long putModel(ModelCard card, long expectedRevision) {
    return conditionalPut(
        "model " + card.name(), modelKey(card.name()), encode(card), expectedRevision, 0);
  }

  @Override
  public long deleteModel(String name, long expectedRevision) {
    return conditionalDelete("model " + name, modelKey(name), expectedRevision);
  }

  @Override
  public long putWorker(WorkerInstance worker, long expectedRevision) {
    long lease = 0;
    if (worker.leased()) {
      lease = await(client.getLeaseClient().grant(worker.leaseTtlSeconds()), "lease grant").getID();
    }
    try {
      return conditionalPut(
          "worker " + worker.id(), workerKey(worker.id()), encode(worker), expectedRevision, lease);
    } catch (RuntimeException e) {
      if (lease != 0) {
        revokeQuietly(lease);
      }
      throw e;
    }
  }

  @Override
  public long deleteWorker(String id, long expectedRevision) {
    return conditionalDelete("worker " + id, workerKey(id), expectedRevision);
  }

  @Override
  public Optional<Versioned<ApiKey>> apiKey(String name) {
    return getOne(apiKeyKey(name), ApiKey.class);
  }

  @Override
  public long putApiKey(ApiKey key, long expectedRevision) {
    return conditionalPut(
        "api key " + key.name(), apiKeyKey(key.name()), encode(key), expectedRevision, 0);
  }

  @Override
  public long deleteApiKey(String name, long expectedRevision) {
    return conditionalDelete("api key " + name, apiKeyKey(name), expectedRevision);
  }

  @Override
  public boolean keepAlive(String workerId) {
    GetResponse r = await(client.getKVClient().get(workerKey(workerId)), "get worker");
    if (r.getKvs().isEmpty()) {
      return false;
    }
    long lease = r.getKvs().get(0).getLease();
    if (lease == 0) {
      return true;
    }
    try {
      return client
              .getLeaseClient()
              .keepAliveOnce(lease)
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
              .getTTL()
          > 0;
    } catch (ExecutionException e) {
      if (isLeaseGone(e.getCause())) {
        return false;
      }
      throw unavailable("lease keep-alive", e.getCause());
    } catch (TimeoutException e) {
      throw unavailable("lease keep-alive", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unavailable("lease keep-alive", e);
    }
  }

  @Override
  public StoreWatch watch(long fromRevision, StoreWatcher watcher) {
    AtomicBoolean ended = new AtomicBoolean();
    WatchOption option =
        WatchOption.builder()
            .isPrefix(true)
            .withPrevKV(true)
            .withRevision(Math.max(1, fromRevision))
            .build();
    Watch.Listener listener =
        Watch.listener(
            (WatchResponse response) -> {
              if (ended.get()) {
                return;
              }
              List<StoreEvent> events = new ArrayList<>();
              for (WatchEvent e : response.getEvents()) {
                StoreEvent mapped = map(e);
                if (mapped != null) {
                  events.add(mapped);
                }
              }
              if (!events.isEmpty()) {
                watcher.onEvents(events);
              }
            },
            (Throwable error) -> {
              if (!ended.compareAndSet(false, true)) {
                return;
              }
              if (error instanceof CompactedException c) {
                watcher.onCompacted(c.getCompactedRevision());
              } else {
                watcher.onError(error);
              }
            },
            () -> {
              if (ended.compareAndSet(false, true)) {
                watcher.onError(new StoreUnavailableException("etcd watch completed", null));
              }
            });
    Watch.Watcher w;
    try {
      w = client.getWatchClient().watch(bytes(prefix + "/"), option, listener);
    } catch (RuntimeException e) {
      throw unavailable("watch", e);
    }
    return () -> {
      ended.set(true);
      w.close();
    };
  }

  @Override
  public StoreHealth health() {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("store", "etcd");
    details.put("endpoints", endpoints);
    details.put("prefix", prefix);
    try {
      GetResponse r =
          client
              .getKVClient()
              .get(
                  bytes(prefix + "/"),
                  GetOption.builder().isPrefix(true).withCountOnly(true).build())
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      details.put("revision", r.getHeader().getRevision());
      details.put("keys", r.getCount());
      return new StoreHealth(true, details);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      details.put("error", "interrupted");
      return new StoreHealth(false, details);
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      details.put("error", cause.toString());
      return new StoreHealth(false, details);
    }
  }

  @Override
  public void close() {
    if (ownsClient) {
      client.close();
    }
  }

  // --- internals ------------------------------------------------------------------------------

  private long conditionalPut(
      String what, ByteSequence key, ByteSequence value, long expected, long lease) {
    PutOption put = lease == 0 ? PutOption.DEFAULT : PutOption.builder().withLeaseId(lease).build();
    if (expected == ANY_REVISION) {
      return await(client.getKVClient().put(key, value, put), "put").getHeader().getRevision();
    }
    checkExpected(expected);
    Cmp cmp =
        expected == MUST_NOT_EXIST
            ? new Cmp(key, Cmp.Op.EQUAL, CmpTarget.version(0))
            : new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(expected));
    TxnResponse r =
        await(
            client
                .getKVClient()
                .txn()
                .If(cmp)
                .Then(Op.put(key, value, put))
                .Else(Op.get(key, GetOption.DEFAULT))
                .commit(),
            "put");
    if (r.isSucceeded()) {
      return r.getHeader().getRevision();
    }
    throw new RevisionConflictException(what, expected, currentRevision(r));
  }

  private long conditionalDelete(String what, ByteSequence key, long expected) {
    if (expected != ANY_REVISION) {
      checkExpected(expected);
    }
    Cmp exists = new Cmp(key, Cmp.Op.GREATER, CmpTarget.version(0));
    Cmp[] cmps =
        expected == ANY_REVISION || expected == MUST_NOT_EXIST
            ? new Cmp[] {exists}
            : new Cmp[] {exists, new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(expected))};
    TxnResponse r =
        await(
            client
                .getKVClient()
                .txn()
                .If(cmps)
                .Then(Op.delete(key, DeleteOption.DEFAULT))
                .Else(Op.get(key, GetOption.DEFAULT))
                .commit(),
            "delete");
    if (r.isSucceeded()) {
      return r.getHeader().getRevision();
    }
    long actual = currentRevision(r);
    if (actual == 0) {
      throw new NotFoundException(what + " not found");
    }
    throw new RevisionConflictException(what, expected, actual);
  }

  private static void checkExpected(long expected) {
    if (expected < ANY_REVISION) {
      throw new IllegalArgumentException("invalid expected revision " + expected);
    }
  }

  private static long currentRevision(TxnResponse r) {
    List<GetResponse> gets = r.getGetResponses();
    if (gets.isEmpty() || gets.get(0).getKvs().isEmpty()) {
      return 0;
    }
    return gets.get(0).getKvs().get(0).getModRevision();
  }

  private <T> Optional<Versioned<T>> getOne(ByteSequence key, Class<T> type) {
    GetResponse r = await(client.getKVClient().get(key), "get");
    if (r.getKvs().isEmpty()) {
      return Optional.empty();
    }
    KeyValue kv = r.getKvs().get(0);
    return decode(kv, type).map(v -> new Versioned<>(v, kv.getModRevision()));
  }

  private StoreEvent map(WatchEvent e) {
    KeyValue kv = e.getKeyValue();
    String key = kv.getKey().toString(StandardCharsets.UTF_8);
    long rev = kv.getModRevision();
    boolean put = e.getEventType() == WatchEvent.EventType.PUT;
    if (key.startsWith(prefix + MODELS)) {
      String name = key.substring((prefix + MODELS).length());
      if (put) {
        return decode(kv, ModelCard.class)
            .map(c -> (StoreEvent) new StoreEvent.ModelPut(c, rev))
            .orElse(null);
      }
      ModelCard prev =
          e.getPrevKV() == null ? null : decode(e.getPrevKV(), ModelCard.class).orElse(null);
      return new StoreEvent.ModelDeleted(name, prev, rev);
    }
    if (key.startsWith(prefix + WORKERS)) {
      String id = key.substring((prefix + WORKERS).length());
      if (put) {
        return decode(kv, WorkerInstance.class)
            .map(w -> (StoreEvent) new StoreEvent.WorkerPut(w, rev))
            .orElse(null);
      }
      WorkerInstance prev =
          e.getPrevKV() == null ? null : decode(e.getPrevKV(), WorkerInstance.class).orElse(null);
      return new StoreEvent.WorkerDeleted(id, prev, rev);
    }
    if (key.startsWith(prefix + API_KEYS)) {
      String name = key.substring((prefix + API_KEYS).length());
      if (put) {
        return decode(kv, ApiKey.class)
            .map(k -> (StoreEvent) new StoreEvent.ApiKeyPut(k, rev))
            .orElse(null);
      }
      ApiKey prev = e.getPrevKV() == null ? null : decode(e.getPrevKV(), ApiKey.class).orElse(null);
      return new StoreEvent.ApiKeyDeleted(name, prev, rev);
    }
    return null;
  }

  private <T> Optional<T> decode(KeyValue kv, Class<T> type) {
    if (kv.getValue() == null || kv.getValue().isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(json.readValue(kv.getValue().getBytes(), type));
    } catch (IOException e) {
      // A value written by something else (or a newer schema) must not break the whole fleet view.
      LOG.warn(
          "ignoring undecodable etcd value at {}: {}",
          kv.getKey().toString(StandardCharsets.UTF_8),
          e.getMessage());
      return Optional.empty();
    }
  }

  private ByteSequence encode(Object value) {
    try {
      return ByteSequence.from(json.writeValueAsBytes(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode " + value, e);
    }
  }

  private ByteSequence modelKey(String name) {
    return bytes(prefix + MODELS + name);
  }

  private ByteSequence apiKeyKey(String name) {
    return bytes(prefix + API_KEYS + name);
  }

  private ByteSequence workerKey(String id) {
    return bytes(prefix + WORKERS + id);
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  private void revokeQuietly(long lease) {
    try {
      client.getLeaseClient().revoke(lease).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      LOG.debug("revoking unused lease {}: {}", lease, e.toString());
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static boolean isLeaseGone(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      String m = String.valueOf(c.getMessage());
      if (c instanceof io.etcd.jetcd.lease.NoSuchLeaseException
          || m.contains("requested lease not found")) {
        return true;
      }
    }
    return false;
  }

  private <T> T await(CompletableFuture<T> f, String what) {
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unavailable(what, e);
    } catch (ExecutionException e) {
      throw unavailable(what, e.getCause() == null ? e : e.getCause());
    } catch (TimeoutException e) {
      f.cancel(true);
      throw unavailable(what, e);
    }
  }

  private StoreUnavailableException unavailable(String what, Throwable cause) {
    return new StoreUnavailableException(
        "etcd " + what + " failed (" + endpoints + "): " + cause, cause);
  }
}
