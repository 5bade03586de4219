package io.sightline.router.state;

import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.sightline.routing.index.WorkerKey;
import io.sightline.routing.selection.WorkerLoad;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Router state replicated through Redis (Lettuce, synchronous API; all calls happen on the state
 * sync thread or at start-up, never on the routing path).
 *
 * <p>Key layout under {@code prefix} (one prefix per deployment, unique per test):
 *
 * <ul>
 *   <li>{@code P:load:<replica>} — hash {@code worker|rank → requests:blocks}, with a TTL refreshed
 *       on every sync; a dead replica's load disappears when it lapses. Updated field by field
 *       (HSET + HDEL of vanished workers) so readers never see an empty hash mid-update.
 *   <li>{@code P:replicas} — sorted set replica → expiry millis, a directory of replicas whose load
 *       key to read (the key's own TTL stays the truth; clock skew only costs a wasted read).
 *   <li>{@code P:pred} — a stream of predictions (capped with approximate MAXLEN); each replica
 *       reads it from the start so a late replica also learns the still-valid ones.
 *   <li>{@code P:snap:<replica>} — hash {@code seq, at, data} of the replica's newest index
 *       snapshot (TTL), and {@code P:snaps} — sorted set replica → stream sequence to find the
 *       newest.
 * </ul>
 */
public final class RedisStateBackend implements StateBackend {
  private static final RedisCodec<String, byte[]> BYTES =
      RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> strings;
  private final StatefulRedisConnection<String, byte[]> bytes;
  private final String prefix;
  private final String url;
  private final long predictionStreamMaxLen;
  private final Duration snapshotTtl;

  /**
   * @param url {@code redis://host:port[/db]}
   * @param prefix key prefix, e.g. {@code sightline:router}
   * @param predictionStreamMaxLen approximate cap of the prediction stream
   * @param snapshotTtl how long a replica's snapshot is kept after it was last written
   */
  public RedisStateBackend(
      String url,
      String prefix,
      Duration timeout,
      long predictionStreamMaxLen,
      Duration snapshotTtl) {
    RedisURI uri = RedisURI.create(url);
    uri.setTimeout(timeout);
    this.client = RedisClient.create(uri);
    this.strings = client.connect();
    this.bytes = client.connect(BYTES);
    this.prefix = prefix;
    this.url = url;
    this.predictionStreamMaxLen = predictionStreamMaxLen;
    this.snapshotTtl = snapshotTtl;
  }

  @Override
  public SharedLoad load(String replicaId, long ttlMillis) {
    return new RedisLoad(replicaId, ttlMillis);
  }

  @Override
  public PredictionStore predictions(String replicaId) {
    return new RedisPredictions(replicaId);
  }

  @Override
  public SnapshotStore snapshots() {
    return new RedisSnapshots();
  }

  @Override
  public String describe() {
    return url.replaceAll("//[^@/]*@", "//***@") + " prefix=" + prefix;
  }

  @Override
  public void close() {
    bytes.close();
    strings.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  private final class RedisLoad implements SharedLoad {
    private final String replicaId;
    private final long ttlMillis;
    private final String key;
    private final String directory = prefix + ":replicas";
    private Set<String> publishedFields = new HashSet<>();
    private volatile Map<WorkerKey, WorkerLoad> others = Map.of();

    RedisLoad(String replicaId, long ttlMillis) {
      this.replicaId = replicaId;
      this.ttlMillis = ttlMillis;
      this.key = prefix + ":load:" + replicaId;
    }

    @Override
    public synchronized void sync(Map<WorkerKey, WorkerLoad> local) {
      RedisCommands<String, String> r = strings.sync();
      Map<String, String> fields = new LinkedHashMap<>();
      local.forEach((k, v) -> fields.put(WorkerKeys.encode(k), SharedLoad.encode(v)));
      // An empty hash cannot exist in Redis; a placeholder keeps the key (and TTL) alive.
      fields.put("_", "1");
      r.hset(key, fields);
      Set<String> vanished = new HashSet<>(publishedFields);
      vanished.removeAll(fields.keySet());
      if (!vanished.isEmpty()) {
        r.hdel(key, vanished.toArray(String[]::new));
      }
      publishedFields = fields.keySet();
      r.pexpire(key, ttlMillis);
      long now = System.currentTimeMillis();
      r.zadd(directory, (double) (now + ttlMillis), replicaId);
      r.zremrangebyscore(directory, Range.create(Double.NEGATIVE_INFINITY, (double) now));
      Map<WorkerKey, WorkerLoad> sum = new HashMap<>();
      for (String other :
          r.zrangebyscore(directory, Range.create((double) now, Double.MAX_VALUE))) {
        if (other.equals(replicaId)) {
          continue;
        }
        r.hgetall(prefix + ":load:" + other)
            .forEach(
                (f, v) -> {
                  WorkerKey k = WorkerKeys.decode(f);
                  WorkerLoad l = SharedLoad.decode(v);
                  if (k != null && l != null) {
                    sum.merge(k, l, WorkerLoad::plus);
                  }
                });
      }
      others = sum;
    }

    @Override
    public Map<WorkerKey, WorkerLoad> others() {
      return others;
    }

    @Override
    public synchronized void close() {
      try {
        RedisCommands<String, String> r = strings.sync();
        r.del(key);
        r.zrem(directory, replicaId);
      } catch (RuntimeException e) {
        // best effort: the TTL removes it anyway
      }
    }
  }

  private final class RedisPredictions implements PredictionStore {
    private final String replicaId;
    private final String stream = prefix + ":pred";
    private String lastId = "0-0";

    RedisPredictions(String replicaId) {
      this.replicaId = replicaId;
    }

    @Override
    public void publish(Prediction p) {
      ByteBuffer buf = ByteBuffer.allocate(8 * p.blocks());
      for (int i = 0; i < p.blocks(); i++) {
        buf.putLong(p.localHash(i));
      }
      Map<String, String> body = new LinkedHashMap<>();
      body.put("r", p.replicaId());
      body.put("m", p.model());
      body.put("w", WorkerKeys.encode(p.worker()));
      body.put("e", Long.toString(p.expiresAtMillis()));
      body.put("h", Base64.getEncoder().encodeToString(buf.array()));
      strings
          .sync()
          .xadd(
              stream,
              XAddArgs.Builder.maxlen(predictionStreamMaxLen).approximateTrimming(true),
              body);
    }

    @Override
    public synchronized List<Prediction> pollOthers() {
      List<Prediction> out = new ArrayList<>();
      while (true) {
        List<StreamMessage<String, String>> batch =
            strings
                .sync()
                .xread(XReadArgs.Builder.count(1000), XReadArgs.StreamOffset.from(stream, lastId));
        if (batch == null || batch.isEmpty()) {
          return out;
        }
        for (StreamMessage<String, String> m : batch) {
          lastId = m.getId();
          Prediction p = decode(m.getBody());
          if (p != null && !p.replicaId().equals(replicaId)) {
            out.add(p);
          }
        }
        if (batch.size() < 1000) {
          return out;
        }
      }
    }

    private static Prediction decode(Map<String, String> body) {
      try {
        WorkerKey w = WorkerKeys.decode(body.get("w"));
        byte[] raw = Base64.getDecoder().decode(body.getOrDefault("h", ""));
        if (w == null || body.get("r") == null || body.get("m") == null || raw.length % 8 != 0) {
          return null;
        }
        ByteBuffer buf = ByteBuffer.wrap(raw);
        long[] hashes = new long[raw.length / 8];
        for (int i = 0; i < hashes.length; i++) {
          hashes[i] = buf.getLong();
        }
        return new Prediction(
            body.get("r"), body.get("m"), w, hashes, Long.parseLong(body.get("e")));
      } catch (IllegalArgumentException e) {
        return null; // a malformed entry from an incompatible writer: skip it
      }
    }

    @Override
    public void close() {}
  }

  private final class RedisSnapshots implements SnapshotStore {
    private final String index = prefix + ":snaps";

    @Override
    public void save(IndexSnapshot s) {
      String key = prefix + ":snap:" + s.replicaId();
      Map<String, byte[]> fields = new LinkedHashMap<>();
      fields.put("seq", ascii(s.streamSequence()));
      fields.put("at", ascii(s.createdAtMillis()));
      fields.put("data", s.data());
      RedisCommands<String, byte[]> r = bytes.sync();
      r.hset(key, fields);
      r.pexpire(key, snapshotTtl.toMillis());
      strings.sync().zadd(index, (double) s.streamSequence(), s.replicaId());
    }

    @Override
    public Optional<IndexSnapshot> newest() {
      // Walk from the highest sequence down: a replica's snapshot key may have expired.
      List<String> replicas = strings.sync().zrevrange(index, 0, 15);
      for (String replica : replicas) {
        Map<String, byte[]> h = bytes.sync().hgetall(prefix + ":snap:" + replica);
        if (h == null || !h.containsKey("data") || !h.containsKey("seq")) {
          strings.sync().zrem(index, replica);
          continue;
        }
        try {
          return Optional.of(
              new IndexSnapshot(
                  replica,
                  Long.parseLong(new String(h.get("seq"), StandardCharsets.US_ASCII)),
                  Long.parseLong(
                      new String(h.getOrDefault("at", ascii(0)), StandardCharsets.US_ASCII)),
                  h.get("data")));
        } catch (NumberFormatException e) {
          strings.sync().zrem(index, replica);
        }
      }
      return Optional.empty();
    }

    @Override
    public void close() {}
  }

  private static byte[] ascii(long v) {
    return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
  }
}
