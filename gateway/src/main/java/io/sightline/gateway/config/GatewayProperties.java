package io.sightline.gateway.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Configuration of the OpenAI-compatible data plane, under {@code sightline.gateway}. Every default
 * lets the standalone app start with no configuration at all: no auth, no quotas, in-memory caches,
 * public-internet-only media fetching.
 */
@Validated
@ConfigurationProperties(prefix = "sightline.gateway")
public class GatewayProperties {

  /**
   * Whether this process serves the OpenAI API at all. Off for processes that only embed the
   * gateway's classes, e.g. a router or registry started from the all-in-one image.
   */
  private boolean enabled = true;

  /**
   * Largest request body accepted, for fixed-length and chunked uploads alike; larger bodies get
   * 413. Base64 images make bodies large, so the default is 32 MiB (see sglang#38735).
   */
  @NotNull private DataSize maxBodySize = DataSize.ofMegabytes(32);

  /**
   * Redis URL ({@code redis://host:port}) shared by quotas and the media metadata cache across a
   * fleet of gateways. Empty: both live in this process's memory.
   */
  private String redisUrl = "";

  /** Prefix of every Redis key the gateway writes, so several deployments can share one Redis. */
  private String redisKeyPrefix = "sightline:gw:";

  /**
   * Base URL of a remote router service ({@code POST /v1/route}, {@code /v1/release}). When set it
   * is used even if a router runs in this JVM; empty: use the in-process routing bean.
   */
  private String routerUrl = "";

  @Valid private final Auth auth = new Auth();
  @Valid private final Media media = new Media();
  @Valid private final Upstream upstream = new Upstream();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public DataSize getMaxBodySize() {
    return maxBodySize;
  }

  public void setMaxBodySize(DataSize maxBodySize) {
    this.maxBodySize = maxBodySize;
  }

  public String getRedisUrl() {
    return redisUrl;
  }

  public void setRedisUrl(String redisUrl) {
    this.redisUrl = redisUrl;
  }

  public String getRedisKeyPrefix() {
    return redisKeyPrefix;
  }

  public void setRedisKeyPrefix(String redisKeyPrefix) {
    this.redisKeyPrefix = redisKeyPrefix;
  }

  public String getRouterUrl() {
    return routerUrl;
  }

  public void setRouterUrl(String routerUrl) {
    this.routerUrl = routerUrl;
  }

  public Auth getAuth() {
    return auth;
  }

  public Media getMedia() {
    return media;
  }

  public Upstream getUpstream() {
    return upstream;
  }

  /** API keys, per-key model allowlists and quotas. */
  public static class Auth {
    /**
     * Require an API key on {@code /v1/**}. Off by default so a local standalone works like a bare
     * vLLM; turn it on in any shared deployment.
     */
    private boolean enabled = false;

    /**
     * Secret mixed into every key hash (HMAC-SHA-256). Keep it apart from the key list (an
     * environment variable, a secret mount) so a leaked list of hashes cannot be brute-forced
     * offline. Empty: plain SHA-256.
     */
    private String pepper = "";

    /** Requests per minute for keys that set no limit of their own; 0 = unlimited. */
    @Min(0)
    private long defaultRequestsPerMinute = 0;

    /**
     * Tokens (prompt estimate + {@code max_tokens}) per minute for keys that set no limit; 0 =
     * unlimited.
     */
    @Min(0)
    private long defaultTokensPerMinute = 0;

    /** The keys, stored as hashes only. */
    @Valid private List<Key> keys = new ArrayList<>();

    /**
     * etcd endpoints holding more keys (the registry's etcd in distributed deployments), e.g.
     * {@code http://etcd:2379}. Empty: configuration only.
     */
    private List<String> etcdEndpoints = new ArrayList<>();

    /** Prefix of the API key records in etcd (one JSON value per key). */
    private String etcdPrefix = "/sightline/apikeys/";

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getPepper() {
      return pepper;
    }

    public void setPepper(String pepper) {
      this.pepper = pepper;
    }

    public long getDefaultRequestsPerMinute() {
      return defaultRequestsPerMinute;
    }

    public void setDefaultRequestsPerMinute(long defaultRequestsPerMinute) {
      this.defaultRequestsPerMinute = defaultRequestsPerMinute;
    }

    public long getDefaultTokensPerMinute() {
      return defaultTokensPerMinute;
    }

    public void setDefaultTokensPerMinute(long defaultTokensPerMinute) {
      this.defaultTokensPerMinute = defaultTokensPerMinute;
    }

    public List<Key> getKeys() {
      return keys;
    }

    public List<String> getEtcdEndpoints() {
      return etcdEndpoints;
    }

    public void setEtcdEndpoints(List<String> etcdEndpoints) {
      this.etcdEndpoints = etcdEndpoints;
    }

    public String getEtcdPrefix() {
      return etcdPrefix;
    }

    public void setEtcdPrefix(String etcdPrefix) {
      this.etcdPrefix = etcdPrefix;
    }

    public void setKeys(List<Key> keys) {
      this.keys = keys;
    }
  }

  /** One API key, as configuration holds it: a hash, never the key itself. */
  public static class Key {
    /**
     * Non-secret name of the key (owner, purpose); used in logs and as the quota bucket. Never used
     * as a metric label.
     */
    @NotNull private String name;

    /**
     * Lowercase hex HMAC-SHA-256 (with the pepper) or SHA-256 (without) of the key, as printed by
     * {@code io.sightline.gateway.auth.ApiKeyHasher}.
     */
    @NotNull private String hash;

    /** Models this key may call; empty = all models. */
    private List<String> models = new ArrayList<>();

    /** Requests per minute for this key; 0 = the default. */
    @Min(0)
    private long requestsPerMinute = 0;

    /** Tokens per minute for this key; 0 = the default. */
    @Min(0)
    private long tokensPerMinute = 0;

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }

    public String getHash() {
      return hash;
    }

    public void setHash(String hash) {
      this.hash = hash;
    }

    public List<String> getModels() {
      return models;
    }

    public void setModels(List<String> models) {
      this.models = models;
    }

    public long getRequestsPerMinute() {
      return requestsPerMinute;
    }

    public void setRequestsPerMinute(long requestsPerMinute) {
      this.requestsPerMinute = requestsPerMinute;
    }

    public long getTokensPerMinute() {
      return tokensPerMinute;
    }

    public void setTokensPerMinute(long tokensPerMinute) {
      this.tokensPerMinute = tokensPerMinute;
    }
  }

  /** Image resolution: data URIs, the SSRF-safe fetcher, the pixel cap and the metadata cache. */
  public static class Media {
    /** Most image parts one request may carry; more gets 400. */
    @Min(0)
    private int maxImagesPerRequest = 32;

    /**
     * Largest image, in pixels (width x height from the header, checked before anything else is
     * done with the image). Pillow's decompression-bomb warning threshold by default.
     */
    @Min(1)
    private long maxPixels = 89_478_485L;

    /** First range-bounded read for an image header (most headers fit). */
    @NotNull private DataSize headerFirstRead = DataSize.ofKilobytes(4);

    /** Second and last range-bounded read when the header is further in (e.g. JPEG with EXIF). */
    @NotNull private DataSize headerMaxRead = DataSize.ofKilobytes(64);

    /**
     * Byte cap of a full download, done only for models whose card enables media decoding (the
     * mm_hash is then over the bytes). Enforced while streaming.
     */
    @NotNull private DataSize maxDownloadSize = DataSize.ofMegabytes(20);

    /** Largest decoded {@code data:} image. */
    @NotNull private DataSize maxDataUriSize = DataSize.ofMegabytes(20);

    /**
     * Fully decode {@code data:} images (and full downloads) before routing, in a bounded pool, to
     * reject corrupt files with 400 instead of letting the engine fail on them. The pixel cap is
     * always checked from the header first.
     */
    private boolean validateDecode = true;

    /** Connect timeout of media fetches. */
    @NotNull private Duration connectTimeout = Duration.ofSeconds(5);

    /** Whole-response timeout of one media fetch. */
    @NotNull private Duration readTimeout = Duration.ofSeconds(10);

    /** Redirects followed per fetch, each re-checked against the address policy. */
    @Min(0)
    @Max(10)
    private int maxRedirects = 3;

    /** Accept only https image URLs (http is refused with 400). */
    private boolean httpsOnly = false;

    /**
     * Fetch from private, loopback, link-local, CGNAT and metadata addresses. Off: such URLs are
     * refused with 400. Turn on only when the images really live on an internal network.
     */
    private boolean allowPrivateAddresses = false;

    /**
     * If not empty, only these hosts (and their subdomains) may be fetched. Matched on the URL's
     * host name, case-insensitively.
     */
    private List<String> allowedDomains = new ArrayList<>();

    /** Hosts (and their subdomains) never fetched, checked before the allowlist. */
    private List<String> deniedDomains = new ArrayList<>();

    /**
     * Exact host names whose internal addresses may be fetched even with {@code
     * allow-private-addresses} off: an internal image server, opted in one by one.
     */
    private List<String> trustedHosts = new ArrayList<>();

    /** How long a URL's (mm_hash, width, height) stays cached. */
    @NotNull private Duration cacheTtl = Duration.ofMinutes(30);

    /** Entries of the local (Caffeine) metadata cache. */
    @Min(0)
    private long cacheMaxEntries = 100_000;

    public int getMaxImagesPerRequest() {
      return maxImagesPerRequest;
    }

    public void setMaxImagesPerRequest(int maxImagesPerRequest) {
      this.maxImagesPerRequest = maxImagesPerRequest;
    }

    public long getMaxPixels() {
      return maxPixels;
    }

    public void setMaxPixels(long maxPixels) {
      this.maxPixels = maxPixels;
    }

    public DataSize getHeaderFirstRead() {
      return headerFirstRead;
    }

    public void setHeaderFirstRead(DataSize headerFirstRead) {
      this.headerFirstRead = headerFirstRead;
    }

    public DataSize getHeaderMaxRead() {
      return headerMaxRead;
    }

    public void setHeaderMaxRead(DataSize headerMaxRead) {
      this.headerMaxRead = headerMaxRead;
    }

    public DataSize getMaxDownloadSize() {
      return maxDownloadSize;
    }

    public void setMaxDownloadSize(DataSize maxDownloadSize) {
      this.maxDownloadSize = maxDownloadSize;
    }

    public DataSize getMaxDataUriSize() {
      return maxDataUriSize;
    }

    public void setMaxDataUriSize(DataSize maxDataUriSize) {
      this.maxDataUriSize = maxDataUriSize;
    }

    public boolean isValidateDecode() {
      return validateDecode;
    }

    public void setValidateDecode(boolean validateDecode) {
      this.validateDecode = validateDecode;
    }

    public Duration getConnectTimeout() {
      return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
    }

    public Duration getReadTimeout() {
      return readTimeout;
    }

    public void setReadTimeout(Duration readTimeout) {
      this.readTimeout = readTimeout;
    }

    public int getMaxRedirects() {
      return maxRedirects;
    }

    public void setMaxRedirects(int maxRedirects) {
      this.maxRedirects = maxRedirects;
    }

    public boolean isHttpsOnly() {
      return httpsOnly;
    }

    public void setHttpsOnly(boolean httpsOnly) {
      this.httpsOnly = httpsOnly;
    }

    public boolean isAllowPrivateAddresses() {
      return allowPrivateAddresses;
    }

    public void setAllowPrivateAddresses(boolean allowPrivateAddresses) {
      this.allowPrivateAddresses = allowPrivateAddresses;
    }

    public List<String> getAllowedDomains() {
      return allowedDomains;
    }

    public void setAllowedDomains(List<String> allowedDomains) {
      this.allowedDomains = allowedDomains;
    }

    public List<String> getDeniedDomains() {
      return deniedDomains;
    }

    public void setDeniedDomains(List<String> deniedDomains) {
      this.deniedDomains = deniedDomains;
    }

    public List<String> getTrustedHosts() {
      return trustedHosts;
    }

    public void setTrustedHosts(List<String> trustedHosts) {
      this.trustedHosts = trustedHosts;
    }

    public Duration getCacheTtl() {
      return cacheTtl;
    }

    public void setCacheTtl(Duration cacheTtl) {
      this.cacheTtl = cacheTtl;
    }

    public long getCacheMaxEntries() {
      return cacheMaxEntries;
    }

    public void setCacheMaxEntries(long cacheMaxEntries) {
      this.cacheMaxEntries = cacheMaxEntries;
    }
  }

  /** Talking to workers: timeouts, retries, circuit breakers. */
  public static class Upstream {
    /** TCP connect timeout to a worker. */
    @NotNull private Duration connectTimeout = Duration.ofSeconds(2);

    /** Time from sending the request to the worker's response headers. */
    @NotNull private Duration firstByteTimeout = Duration.ofSeconds(120);

    /** Longest silence between two chunks of a streamed answer before the stream is failed. */
    @NotNull private Duration idleTimeout = Duration.ofSeconds(120);

    /**
     * Attempts per request, each on a different worker, made only while nothing has been sent to
     * the client yet (connect failure, 5xx, open circuit breaker). 1 = no retry.
     */
    @Min(1)
    @Max(5)
    private int maxAttempts = 2;

    /** Failure rate (percent) over the sliding window that opens a worker's circuit breaker. */
    @Min(1)
    @Max(100)
    private float failureRateThreshold = 50;

    /** Calls recorded per worker before the failure rate is judged. */
    @Min(1)
    private int minimumNumberOfCalls = 4;

    /** Size of each worker's count-based sliding window. */
    @Min(1)
    private int slidingWindowSize = 20;

    /** How long an open breaker rejects calls before letting probes through. */
    @NotNull private Duration openStateWait = Duration.ofSeconds(10);

    public Duration getConnectTimeout() {
      return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
    }

    public Duration getFirstByteTimeout() {
      return firstByteTimeout;
    }

    public void setFirstByteTimeout(Duration firstByteTimeout) {
      this.firstByteTimeout = firstByteTimeout;
    }

    public Duration getIdleTimeout() {
      return idleTimeout;
    }

    public void setIdleTimeout(Duration idleTimeout) {
      this.idleTimeout = idleTimeout;
    }

    public int getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    public float getFailureRateThreshold() {
      return failureRateThreshold;
    }

    public void setFailureRateThreshold(float failureRateThreshold) {
      this.failureRateThreshold = failureRateThreshold;
    }

    public int getMinimumNumberOfCalls() {
      return minimumNumberOfCalls;
    }

    public void setMinimumNumberOfCalls(int minimumNumberOfCalls) {
      this.minimumNumberOfCalls = minimumNumberOfCalls;
    }

    public int getSlidingWindowSize() {
      return slidingWindowSize;
    }

    public void setSlidingWindowSize(int slidingWindowSize) {
      this.slidingWindowSize = slidingWindowSize;
    }

    public Duration getOpenStateWait() {
      return openStateWait;
    }

    public void setOpenStateWait(Duration openStateWait) {
      this.openStateWait = openStateWait;
    }
  }
}
