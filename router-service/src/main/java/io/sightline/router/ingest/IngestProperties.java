package io.sightline.router.ingest;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code sightline.ingest.*}: KV event ingestion and load scraping. Defaults give the embedded mode
 * (in-process plane, this replica bridges every worker, 50 ms scraping).
 */
@ConfigurationProperties(prefix = "sightline.ingest")
public class IngestProperties {

  /** The event plane. */
  public enum Plane {
    /** In-process bus (single router, standalone). */
    EMBEDDED,
    /** NATS JetStream (replicated routers). */
    NATS
  }

  /** Who bridges which worker. */
  public enum Ownership {
    /** This replica bridges every worker. */
    ALL,
    /** One replica per worker, elected with etcd leases. */
    ETCD
  }

  /** Whether ingestion runs at all. */
  private boolean enabled = true;

  private Plane plane = Plane.EMBEDDED;
  private Ownership ownership = Ownership.ALL;

  /** This replica's id in ownership keys; default: host name plus a random suffix. */
  private String nodeId;

  /** How often ownership and bridges are reconciled (also on every registry change). */
  private Duration reconcileInterval = Duration.ofSeconds(1);

  /** Receive timeout of one vLLM replay request. */
  private Duration replayTimeout = Duration.ofSeconds(2);

  /** TRT-LLM {@code /kv_cache_events} poll interval when a worker does not set one. */
  private Duration trtPollInterval = Duration.ofMillis(50);

  /** Timeout of one TRT-LLM events poll. */
  private Duration httpTimeout = Duration.ofSeconds(2);

  private final Nats nats = new Nats();
  private final Etcd etcd = new Etcd();
  private final Scrape scrape = new Scrape();

  /** {@code sightline.ingest.nats.*}. */
  public static class Nats {
    /** NATS server URL(s), comma-separated. */
    private String url = "nats://127.0.0.1:4222";

    /** JetStream stream holding every worker's subject. */
    private String stream = "SIGHTLINE_KV_EVENTS";

    /** Subject prefix; subjects are {@code <prefix>.<worker>.<rank>}. */
    private String subjectPrefix = "sightline.kv";

    /** Retention by age. */
    private Duration maxAge = Duration.ofHours(6);

    /** Retention by size in bytes; -1 for none. */
    private long maxBytes = -1;

    /** Memory instead of file storage. */
    private boolean memoryStorage = false;

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public String getStream() {
      return stream;
    }

    public void setStream(String stream) {
      this.stream = stream;
    }

    public String getSubjectPrefix() {
      return subjectPrefix;
    }

    public void setSubjectPrefix(String subjectPrefix) {
      this.subjectPrefix = subjectPrefix;
    }

    public Duration getMaxAge() {
      return maxAge;
    }

    public void setMaxAge(Duration maxAge) {
      this.maxAge = maxAge;
    }

    public long getMaxBytes() {
      return maxBytes;
    }

    public void setMaxBytes(long maxBytes) {
      this.maxBytes = maxBytes;
    }

    public boolean isMemoryStorage() {
      return memoryStorage;
    }

    public void setMemoryStorage(boolean memoryStorage) {
      this.memoryStorage = memoryStorage;
    }
  }

  /** {@code sightline.ingest.etcd.*}. */
  public static class Etcd {
    /** etcd endpoints. */
    private List<String> endpoints = List.of("http://127.0.0.1:2379");

    /** Key prefix of ownership keys ({@code <prefix><worker>} = owner node id). */
    private String keyPrefix = "/sightline/bridge/";

    /** Lease TTL: how long a crashed owner's workers stay unbridged (min 2 s). */
    private Duration leaseTtl = Duration.ofSeconds(5);

    public List<String> getEndpoints() {
      return endpoints;
    }

    public void setEndpoints(List<String> endpoints) {
      this.endpoints = endpoints;
    }

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }

    public Duration getLeaseTtl() {
      return leaseTtl;
    }

    public void setLeaseTtl(Duration leaseTtl) {
      this.leaseTtl = leaseTtl;
    }
  }

  /** {@code sightline.ingest.scrape.*}. */
  public static class Scrape {
    /** Whether worker metrics are scraped. */
    private boolean enabled = true;

    /** Scrape interval per worker. */
    private Duration interval = Duration.ofMillis(50);

    /** Timeout of one scrape. */
    private Duration timeout = Duration.ofSeconds(1);

    /** A sample older than this is stale (ignored by selection). */
    private Duration staleAfter = Duration.ofSeconds(1);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }

    public Duration getStaleAfter() {
      return staleAfter;
    }

    public void setStaleAfter(Duration staleAfter) {
      this.staleAfter = staleAfter;
    }
  }

  /** Checks values and fails start-up with a clear message. */
  public void validate() {
    positive("sightline.ingest.reconcile-interval", reconcileInterval);
    positive("sightline.ingest.replay-timeout", replayTimeout);
    positive("sightline.ingest.trt-poll-interval", trtPollInterval);
    positive("sightline.ingest.http-timeout", httpTimeout);
    positive("sightline.ingest.scrape.interval", scrape.interval);
    positive("sightline.ingest.scrape.timeout", scrape.timeout);
    positive("sightline.ingest.scrape.stale-after", scrape.staleAfter);
    positive("sightline.ingest.etcd.lease-ttl", etcd.leaseTtl);
    if (plane == Plane.NATS && (nats.url == null || nats.url.isBlank())) {
      throw new IllegalArgumentException("sightline.ingest.nats.url is required with plane=nats");
    }
    if (nats.subjectPrefix == null
        || nats.subjectPrefix.isBlank()
        || nats.subjectPrefix.matches(".*[\\s*>].*")
        || nats.subjectPrefix.endsWith(".")) {
      throw new IllegalArgumentException(
          "sightline.ingest.nats.subject-prefix must be a NATS subject without wildcards: "
              + nats.subjectPrefix);
    }
    if (ownership == Ownership.ETCD && (etcd.endpoints == null || etcd.endpoints.isEmpty())) {
      throw new IllegalArgumentException(
          "sightline.ingest.etcd.endpoints is required with ownership=etcd");
    }
  }

  private static void positive(String name, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be a positive duration, was " + d);
    }
  }

  /** The effective node id. */
  public String effectiveNodeId() {
    if (nodeId != null && !nodeId.isBlank()) {
      return nodeId;
    }
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      host = "router";
    }
    nodeId = host + "-" + UUID.randomUUID().toString().substring(0, 8);
    return nodeId;
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Plane getPlane() {
    return plane;
  }

  public void setPlane(Plane plane) {
    this.plane = plane;
  }

  public Ownership getOwnership() {
    return ownership;
  }

  public void setOwnership(Ownership ownership) {
    this.ownership = ownership;
  }

  public String getNodeId() {
    return nodeId;
  }

  public void setNodeId(String nodeId) {
    this.nodeId = nodeId;
  }

  public Duration getReconcileInterval() {
    return reconcileInterval;
  }

  public void setReconcileInterval(Duration reconcileInterval) {
    this.reconcileInterval = reconcileInterval;
  }

  public Duration getReplayTimeout() {
    return replayTimeout;
  }

  public void setReplayTimeout(Duration replayTimeout) {
    this.replayTimeout = replayTimeout;
  }

  public Duration getTrtPollInterval() {
    return trtPollInterval;
  }

  public void setTrtPollInterval(Duration trtPollInterval) {
    this.trtPollInterval = trtPollInterval;
  }

  public Duration getHttpTimeout() {
    return httpTimeout;
  }

  public void setHttpTimeout(Duration httpTimeout) {
    this.httpTimeout = httpTimeout;
  }

  public Nats getNats() {
    return nats;
  }

  public Etcd getEtcd() {
    return etcd;
  }

  public Scrape getScrape() {
    return scrape;
  }
}
