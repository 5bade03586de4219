package io.sightline.registry.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of the registry under {@code sightline.registry}. Every field has a default that
 * lets the standalone app start with no configuration (embedded, in-memory, no persistence).
 */
@ConfigurationProperties(prefix = "sightline.registry")
public class RegistryProperties {

  /** Where the registry lives for this process. */
  public enum Mode {
    /** This process owns a store (memory or etcd) and, in a web app, serves the admin API. */
    EMBEDDED,
    /** This process only reads a remote registry over HTTP + SSE ({@link #getUrl()}). */
    REMOTE
  }

  /** Which store backs an embedded registry. */
  public enum StoreKind {
    /** In-process maps, optionally persisted to {@link Memory#getFile()}. */
    MEMORY,
    /** etcd v3 via jetcd. */
    ETCD
  }

  /**
   * {@code embedded} (default) runs the store in this process; {@code remote} makes the {@code
   * RegistryClient} follow the registry service at {@code sightline.registry.url}.
   */
  private Mode mode = Mode.EMBEDDED;

  /**
   * Base URL of the registry service when {@code mode=remote}, e.g. {@code http://registry:8081}.
   */
  private URI url;

  /** Store backing an embedded registry: {@code memory} (default) or {@code etcd}. */
  private StoreKind store = StoreKind.MEMORY;

  /**
   * Whether an embedded registry in a web application serves the {@code /v1/admin} REST + SSE API.
   */
  private boolean apiEnabled = true;

  /**
   * Lease TTL given to self-registered workers that do not ask for one (Dynamo and the issue both
   * use 10 s); a worker that misses heartbeats for this long is removed.
   */
  private Duration defaultLeaseTtl = Duration.ofSeconds(10);

  /** Longest lease TTL a worker may ask for. */
  private Duration maxLeaseTtl = Duration.ofHours(1);

  /** Largest accepted request body (cards with inline HF files are the big ones); larger → 413. */
  private DataSize maxBodySize = DataSize.ofMegabytes(4);

  /**
   * Interval of SSE keep-alive comments on the change stream, so idle clients detect dead links.
   */
  private Duration sseHeartbeat = Duration.ofSeconds(5);

  /**
   * Shared secret for the {@code /v1/admin} API: when set, every request (including the change
   * stream) needs {@code Authorization: Bearer <token>}, and a remote client sends it. Unset = no
   * authentication (only for a registry reachable from trusted networks: the API can register
   * workers and read API key digests).
   */
  private String adminToken;

  /** In-memory store settings. */
  private final Memory memory = new Memory();

  /** etcd store settings. */
  private final Etcd etcd = new Etcd();

  /** Client (cache) settings, for both the in-process and the remote client. */
  private final Client client = new Client();

  public Mode getMode() {
    return mode;
  }

  public void setMode(Mode mode) {
    this.mode = mode;
  }

  public URI getUrl() {
    return url;
  }

  public void setUrl(URI url) {
    this.url = url;
  }

  public StoreKind getStore() {
    return store;
  }

  public void setStore(StoreKind store) {
    this.store = store;
  }

  public boolean isApiEnabled() {
    return apiEnabled;
  }

  public void setApiEnabled(boolean apiEnabled) {
    this.apiEnabled = apiEnabled;
  }

  public Duration getDefaultLeaseTtl() {
    return defaultLeaseTtl;
  }

  public void setDefaultLeaseTtl(Duration defaultLeaseTtl) {
    this.defaultLeaseTtl = defaultLeaseTtl;
  }

  public Duration getMaxLeaseTtl() {
    return maxLeaseTtl;
  }

  public void setMaxLeaseTtl(Duration maxLeaseTtl) {
    this.maxLeaseTtl = maxLeaseTtl;
  }

  public DataSize getMaxBodySize() {
    return maxBodySize;
  }

  public void setMaxBodySize(DataSize maxBodySize) {
    this.maxBodySize = maxBodySize;
  }

  public String getAdminToken() {
    return adminToken;
  }

  public void setAdminToken(String adminToken) {
    this.adminToken = adminToken;
  }

  public Duration getSseHeartbeat() {
    return sseHeartbeat;
  }

  public void setSseHeartbeat(Duration sseHeartbeat) {
    this.sseHeartbeat = sseHeartbeat;
  }

  public Memory getMemory() {
    return memory;
  }

  public Etcd getEtcd() {
    return etcd;
  }

  public Client getClient() {
    return client;
  }

  /** In-memory store settings ({@code sightline.registry.memory.*}). */
  public static class Memory {
    /** JSON file that persists cards and static workers across restarts; none when unset. */
    private Path file;

    /** Change events kept for resuming watches; older resumptions reload a snapshot. */
    private int historySize = 10_000;

    /** How often lapsed leases are swept; expiry is observed within TTL + this interval. */
    private Duration leaseSweepInterval = Duration.ofMillis(100);

    public Path getFile() {
      return file;
    }

    public void setFile(Path file) {
      this.file = file;
    }

    public int getHistorySize() {
      return historySize;
    }

    public void setHistorySize(int historySize) {
      this.historySize = historySize;
    }

    public Duration getLeaseSweepInterval() {
      return leaseSweepInterval;
    }

    public void setLeaseSweepInterval(Duration leaseSweepInterval) {
      this.leaseSweepInterval = leaseSweepInterval;
    }
  }

  /** etcd store settings ({@code sightline.registry.etcd.*}). */
  public static class Etcd {
    /** etcd client endpoints, e.g. {@code http://etcd-0:2379}. */
    private List<String> endpoints = List.of("http://127.0.0.1:2379");

    /**
     * Key prefix (no trailing slash); cards live under {@code <prefix>/models/}, workers under
     * {@code <prefix>/workers/}.
     */
    private String prefix = "/sightline/registry";

    /** Timeout of each etcd request; a slower or unreachable etcd answers 503. */
    private Duration requestTimeout = Duration.ofSeconds(3);

    public List<String> getEndpoints() {
      return endpoints;
    }

    public void setEndpoints(List<String> endpoints) {
      this.endpoints = endpoints;
    }

    public String getPrefix() {
      return prefix;
    }

    public void setPrefix(String prefix) {
      this.prefix = prefix;
    }

    public Duration getRequestTimeout() {
      return requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
      this.requestTimeout = requestTimeout;
    }
  }

  /** Client cache settings ({@code sightline.registry.client.*}). */
  public static class Client {
    /** First delay before re-opening a failed watch or stream; doubles per failure. */
    private Duration retryDelay = Duration.ofMillis(200);

    /** Cap of the reconnect backoff. */
    private Duration maxRetryDelay = Duration.ofSeconds(5);

    /** How often the in-process client probes the store's health to notice outages. */
    private Duration probeInterval = Duration.ofSeconds(1);

    /**
     * A remote client drops and re-opens the SSE stream after this long without a byte (should be a
     * few times the server's {@code sse-heartbeat}).
     */
    private Duration idleTimeout = Duration.ofSeconds(15);

    public Duration getRetryDelay() {
      return retryDelay;
    }

    public void setRetryDelay(Duration retryDelay) {
      this.retryDelay = retryDelay;
    }

    public Duration getMaxRetryDelay() {
      return maxRetryDelay;
    }

    public void setMaxRetryDelay(Duration maxRetryDelay) {
      this.maxRetryDelay = maxRetryDelay;
    }

    public Duration getProbeInterval() {
      return probeInterval;
    }

    public void setProbeInterval(Duration probeInterval) {
      this.probeInterval = probeInterval;
    }

    public Duration getIdleTimeout() {
      return idleTimeout;
    }

    public void setIdleTimeout(Duration idleTimeout) {
      this.idleTimeout = idleTimeout;
    }
  }
}
