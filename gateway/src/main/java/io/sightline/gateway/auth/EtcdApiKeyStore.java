package io.sightline.gateway.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * API keys kept in etcd (the registry's store in distributed deployments), one key per API key
 * under a prefix (default {@code /sightline/apikeys/}), value:
 *
 * <pre>
 * {"name":"alice","hash":"&lt;64 hex&gt;","models":["m"],"requests_per_minute":0,"tokens_per_minute":0}
 * </pre>
 *
 * Only hashes are stored, as in configuration. The store loads the prefix once and then follows a
 * prefix watch from the next revision, so {@link #keys()} answers from memory and a key added or
 * revoked with {@code etcdctl} takes effect on every gateway within the watch latency. A broken
 * value is logged and ignored (it cannot lock anyone out or in); a failed watch is re-established
 * by a full reload after a second. Its keys are added to those of the configuration store.
 */
public final class EtcdApiKeyStore implements ApiKeyStore, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EtcdApiKeyStore.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Client client;
  private final String prefix;
  private final ApiKeyStore alsoConfigured;
  private final Map<String, StoredApiKey> byEtcdKey = new ConcurrentHashMap<>();
  private final ScheduledExecutorService retry =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("sightline-apikeys-etcd").unstarted(r));
  private volatile List<StoredApiKey> snapshot = List.of();
  private volatile Watch.Watcher watcher;
  private volatile boolean closed;

  /**
   * @param client the etcd client; the store owns it and closes it in {@link #close()}
   * @param alsoConfigured keys from configuration, served alongside the etcd ones
   */
  public EtcdApiKeyStore(Client client, String prefix, ApiKeyStore alsoConfigured) {
    this.client = client;
    this.prefix = prefix;
    this.alsoConfigured = alsoConfigured;
    reload();
  }

  @Override
  public List<StoredApiKey> keys() {
    return snapshot;
  }

  private synchronized void reload() {
    if (closed) {
      return;
    }
    try {
      ByteSequence p = bytes(prefix);
      GetResponse r =
          client
              .getKVClient()
              .get(p, GetOption.builder().isPrefix(true).build())
              .get(10, TimeUnit.SECONDS);
      byEtcdKey.clear();
      for (KeyValue kv : r.getKvs()) {
        put(kv);
      }
      publish();
      if (watcher != null) {
        watcher.close();
      }
      watcher =
          client
              .getWatchClient()
              .watch(
                  p,
                  WatchOption.builder()
                      .isPrefix(true)
                      .withRevision(r.getHeader().getRevision() + 1)
                      .build(),
                  Watch.listener(
                      resp -> {
                        for (WatchEvent e : resp.getEvents()) {
                          if (e.getEventType() == WatchEvent.EventType.DELETE) {
                            byEtcdKey.remove(
                                e.getKeyValue().getKey().toString(StandardCharsets.UTF_8));
                          } else if (e.getEventType() == WatchEvent.EventType.PUT) {
                            put(e.getKeyValue());
                          }
                        }
                        publish();
                      },
                      error -> {
                        log.warn("API key watch on etcd failed ({}); reloading", error.toString());
                        scheduleReload();
                      }));
      log.info("{} API key(s) loaded from etcd prefix {}", byEtcdKey.size(), prefix);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      log.warn("Loading API keys from etcd failed ({}); retrying", e.toString());
      scheduleReload();
    }
  }

  private void scheduleReload() {
    if (!closed) {
      retry.schedule(this::reload, 1, TimeUnit.SECONDS);
    }
  }

  private void put(KeyValue kv) {
    String key = kv.getKey().toString(StandardCharsets.UTF_8);
    Optional<StoredApiKey> parsed = parse(key, kv.getValue().toString(StandardCharsets.UTF_8));
    if (parsed.isPresent()) {
      byEtcdKey.put(key, parsed.get());
    } else {
      byEtcdKey.remove(key);
    }
  }

  /** Parses one value; empty (and a warning) when it is not a valid key record. */
  static Optional<StoredApiKey> parse(String etcdKey, String value) {
    try {
      JsonNode n = JSON.readTree(value);
      String name = n.path("name").asText("");
      String hash = n.path("hash").asText("");
      byte[] digest = HexFormat.of().parseHex(hash.strip().toLowerCase());
      if (name.isBlank() || digest.length != 32) {
        throw new IllegalArgumentException("needs a name and a 64-hex hash");
      }
      Set<String> models = new java.util.HashSet<>();
      n.path("models").forEach(m -> models.add(m.asText()));
      return Optional.of(
          new StoredApiKey(
              name,
              digest,
              Set.copyOf(models),
              Math.max(0, n.path("requests_per_minute").asLong(0)),
              Math.max(0, n.path("tokens_per_minute").asLong(0))));
    } catch (Exception e) {
      log.warn("Ignoring API key record {}: {}", etcdKey, e.getMessage());
      return Optional.empty();
    }
  }

  private void publish() {
    List<StoredApiKey> all = new ArrayList<>(alsoConfigured.keys());
    all.addAll(byEtcdKey.values());
    snapshot = List.copyOf(all);
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    closed = true;
    retry.shutdownNow();
    if (watcher != null) {
      watcher.close();
    }
    client.close();
  }
}
