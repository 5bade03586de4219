package io.sightline.router;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Router settings under {@code sightline.router}. Every field has a default so the embedded
 * (standalone) router starts with none; the distributed deployment sets {@code state.mode=redis}.
 */
@ConfigurationProperties(prefix = "sightline.router")
public class RouterProperties {

  /**
   * This replica's id, used for its shared-load key, its predictions and its snapshots; defaults to
   * the host name plus a random suffix (unique per process).
   */
  private String replicaId;

  /** Block size for a model routed without a card (a card's {@code kv_block_size} wins). */
  private int defaultBlockSize = 16;

  /**
   * Where inline Hugging Face files of model cards are written so the tokenizer loader can read
   * them; defaults to a directory under {@code java.io.tmpdir}.
   */
  private Path hfCacheDir;

  /**
   * Keep a compacted journal of every applied KV event (per cached engine block: its tokens) so
   * index snapshots can be written for warm start. Costs about 4 bytes per cached token; turn off
   * for a single embedded router that never warm-starts.
   */
  private boolean journal = true;

  /** Worker-selection knobs (Dynamo's router options, dynamo.md §4). */
  private final Selection selection = new Selection();

  /** Replicated state (shared load, predictions, snapshots). */
  private final State state = new State();

  /** Index tunables. */
  private final Index index = new Index();

  public String getReplicaId() {
    return replicaId;
  }

  public void setReplicaId(String replicaId) {
    this.replicaId = replicaId;
  }

  public int getDefaultBlockSize() {
    return defaultBlockSize;
  }

  public void setDefaultBlockSize(int defaultBlockSize) {
    if (defaultBlockSize <= 0) {
      throw new IllegalArgumentException("sightline.router.default-block-size must be > 0");
    }
    this.defaultBlockSize = defaultBlockSize;
  }

  public Path getHfCacheDir() {
    return hfCacheDir;
  }

  public void setHfCacheDir(Path hfCacheDir) {
    this.hfCacheDir = hfCacheDir;
  }

  public boolean isJournal() {
    return journal;
  }

  public void setJournal(boolean journal) {
    this.journal = journal;
  }

  public Selection getSelection() {
    return selection;
  }

  public State getState() {
    return state;
  }

  public Index getIndex() {
    return index;
  }

  /** Worker-selection knobs; defaults are Dynamo's. */
  public static class Selection {
    /** {@code router_kv_overlap_score_credit}: share of an overlapping block's prefill saved. */
    private double overlapScoreCredit = 1.0;

    /** {@code prefill_load_scale}: weight of the prefill term against the decode term. */
    private double prefillLoadScale = 1.0;

    /** {@code router_temperature}: 0 picks the cheapest worker; above 0 samples a softmax. */
    private double temperature = 0.0;

    /** {@code decode_active_request_weight}: extra cost per active request on a worker. */
    private double decodeActiveRequestWeight = 0.0;

    /**
     * How long a decision's predicted cache entries live when workers send KV events (events
     * confirm them); llm-d's speculative TTL is 2 s.
     */
    private Duration predictedTtl = Duration.ofSeconds(2);

    /** How long predicted entries live for models routed without events ({@code router_ttl}). */
    private Duration approximateTtl = Duration.ofSeconds(120);

    /** Weight of a worker's scraped waiting-queue length (0 ignores scraped metrics). */
    private double waitingQueueWeight = 0.0;

    /** Weight of a worker's scraped running requests. */
    private double runningRequestsWeight = 0.0;

    /** Cost of a full KV cache (scraped usage 0–1 times this). */
    private double kvUsageWeight = 0.0;

    /** Scraped metrics older than this are ignored by the cost. */
    private Duration metricsStaleAfter = Duration.ofSeconds(2);

    /** A routed request whose release never comes stops counting as load after this. */
    private Duration activeRequestTtl = Duration.ofMinutes(10);

    public double getOverlapScoreCredit() {
      return overlapScoreCredit;
    }

    public void setOverlapScoreCredit(double v) {
      this.overlapScoreCredit = v;
    }

    public double getPrefillLoadScale() {
      return prefillLoadScale;
    }

    public void setPrefillLoadScale(double v) {
      this.prefillLoadScale = v;
    }

    public double getTemperature() {
      return temperature;
    }

    public void setTemperature(double v) {
      this.temperature = v;
    }

    public double getDecodeActiveRequestWeight() {
      return decodeActiveRequestWeight;
    }

    public void setDecodeActiveRequestWeight(double v) {
      this.decodeActiveRequestWeight = v;
    }

    public Duration getPredictedTtl() {
      return predictedTtl;
    }

    public void setPredictedTtl(Duration v) {
      this.predictedTtl = v;
    }

    public Duration getApproximateTtl() {
      return approximateTtl;
    }

    public void setApproximateTtl(Duration v) {
      this.approximateTtl = v;
    }

    public double getWaitingQueueWeight() {
      return waitingQueueWeight;
    }

    public void setWaitingQueueWeight(double v) {
      this.waitingQueueWeight = v;
    }

    public double getRunningRequestsWeight() {
      return runningRequestsWeight;
    }

    public void setRunningRequestsWeight(double v) {
      this.runningRequestsWeight = v;
    }

    public double getKvUsageWeight() {
      return kvUsageWeight;
    }

    public void setKvUsageWeight(double v) {
      this.kvUsageWeight = v;
    }

    public Duration getMetricsStaleAfter() {
      return metricsStaleAfter;
    }

    public void setMetricsStaleAfter(Duration v) {
      this.metricsStaleAfter = v;
    }

    public Duration getActiveRequestTtl() {
      return activeRequestTtl;
    }

    public void setActiveRequestTtl(Duration v) {
      this.activeRequestTtl = v;
    }
  }

  /** Replicated router state. */
  public static class State {
    /** {@code memory} (embedded default, this JVM only) or {@code redis} (shared by replicas). */
    private String mode = "memory";

    /** Redis URL for {@code mode=redis}, e.g. {@code redis://redis:6379}. */
    private String redisUrl = "redis://127.0.0.1:6379";

    /** Prefix of every Redis key this router writes; one per deployment. */
    private String keyPrefix = "sightline:router";

    /** Redis command timeout. */
    private Duration redisTimeout = Duration.ofSeconds(2);

    /** How often load is published/fetched and others' predictions are applied. */
    private Duration syncInterval = Duration.ofMillis(100);

    /**
     * How long this replica's published load outlives its last sync: after a crash, the others stop
     * counting its load after this.
     */
    private Duration loadTtl = Duration.ofSeconds(3);

    /** Share each decision's predicted cache entries with the other replicas. */
    private boolean sharePredictions = true;

    /** Approximate cap of the shared prediction stream (Redis). */
    private long predictionStreamMaxLen = 100_000;

    /** How often an index snapshot is written (0 disables snapshots). */
    private Duration snapshotInterval = Duration.ofSeconds(30);

    /** How long a replica's snapshot is kept after it was last written. */
    private Duration snapshotTtl = Duration.ofHours(6);

    /** Load the newest snapshot at start and resume the event stream after it. */
    private boolean warmStart = true;

    public String getMode() {
      return mode;
    }

    public void setMode(String mode) {
      if (!"memory".equals(mode) && !"redis".equals(mode)) {
        throw new IllegalArgumentException(
            "sightline.router.state.mode must be memory or redis, was " + mode);
      }
      this.mode = mode;
    }

    public String getRedisUrl() {
      return redisUrl;
    }

    public void setRedisUrl(String redisUrl) {
      this.redisUrl = redisUrl;
    }

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }

    public Duration getRedisTimeout() {
      return redisTimeout;
    }

    public void setRedisTimeout(Duration redisTimeout) {
      this.redisTimeout = redisTimeout;
    }

    public Duration getSyncInterval() {
      return syncInterval;
    }

    public void setSyncInterval(Duration syncInterval) {
      this.syncInterval = syncInterval;
    }

    public Duration getLoadTtl() {
      return loadTtl;
    }

    public void setLoadTtl(Duration loadTtl) {
      this.loadTtl = loadTtl;
    }

    public boolean isSharePredictions() {
      return sharePredictions;
    }

    public void setSharePredictions(boolean sharePredictions) {
      this.sharePredictions = sharePredictions;
    }

    public long getPredictionStreamMaxLen() {
      return predictionStreamMaxLen;
    }

    public void setPredictionStreamMaxLen(long predictionStreamMaxLen) {
      this.predictionStreamMaxLen = predictionStreamMaxLen;
    }

    public Duration getSnapshotInterval() {
      return snapshotInterval;
    }

    public void setSnapshotInterval(Duration snapshotInterval) {
      this.snapshotInterval = snapshotInterval;
    }

    public Duration getSnapshotTtl() {
      return snapshotTtl;
    }

    public void setSnapshotTtl(Duration snapshotTtl) {
      this.snapshotTtl = snapshotTtl;
    }

    public boolean isWarmStart() {
      return warmStart;
    }

    public void setWarmStart(boolean warmStart) {
      this.warmStart = warmStart;
    }
  }

  /** KV index tunables (routing-core {@code IndexConfig}). */
  public static class Index {
    /** Overlap weight of a block held only in host memory (Dynamo 0.75). */
    private double hostWeight = 0.75;

    /** Overlap weight of a block held only on disk (Dynamo 0.25). */
    private double diskWeight = 0.25;

    /** Overlap weight of a block held only in an external cache. */
    private double externalWeight = 0.25;

    /** Most (block, worker) prediction entries kept per model; the oldest are evicted. */
    private int predictedEntryBudget = 1_000_000;

    /** How far behind the last applied sequence an event counts as a replayed duplicate. */
    private long replayWindow = 100_000;

    public double getHostWeight() {
      return hostWeight;
    }

    public void setHostWeight(double v) {
      this.hostWeight = v;
    }

    public double getDiskWeight() {
      return diskWeight;
    }

    public void setDiskWeight(double v) {
      this.diskWeight = v;
    }

    public double getExternalWeight() {
      return externalWeight;
    }

    public void setExternalWeight(double v) {
      this.externalWeight = v;
    }

    public int getPredictedEntryBudget() {
      return predictedEntryBudget;
    }

    public void setPredictedEntryBudget(int v) {
      this.predictedEntryBudget = v;
    }

    public long getReplayWindow() {
      return replayWindow;
    }

    public void setReplayWindow(long v) {
      this.replayWindow = v;
    }
  }
}
