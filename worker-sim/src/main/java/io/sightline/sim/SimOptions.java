package io.sightline.sim;

import io.sightline.sim.engine.TimingModel;
import io.sightline.sim.events.VllmEventEncoder;
import java.nio.file.Path;
import java.util.List;

/**
 * Configuration of one simulated worker. Build with {@link #defaults()} and the {@code with…}
 * methods; every field has a default that starts a working vLLM-dialect worker on a random port.
 *
 * @param dialect engine imitated
 * @param host interface to bind (HTTP and ZMQ)
 * @param port HTTP port, 0 for a random free port
 * @param servedModelName model id served ({@code /v1/models}); defaults to the model directory's
 *     name, else {@code sim-model}
 * @param modelDir Hugging Face model directory (tokenizer, chat template, config), or null for the
 *     approximate encoder
 * @param loraNames LoRA adapters the worker serves (requested through {@code model})
 * @param blockSize tokens per KV block, 0 for the dialect default (vLLM 16, TRT-LLM 32)
 * @param numBlocks KV blocks in the pool
 * @param maxNumSeqs requests running at once
 * @param timing latency model
 * @param hashSeed vLLM {@code PYTHONHASHSEED} (null: random root per start, like vLLM)
 * @param eventFormat vLLM inner event encoding
 * @param zmqPort vLLM KV event PUB port, 0 random, -1 no publisher
 * @param replayPort vLLM replay ROUTER port, 0 random, -1 none
 * @param topic vLLM event topic frame
 * @param dpRank data-parallel rank reported in events
 * @param seed output-text seed
 * @param registryUrl Sightline registry base URL to register with, or null
 * @param workerId id to register as (null: derived from host and port)
 * @param advertiseHost host name other processes reach this worker by
 */
public record SimOptions(
    Dialect dialect,
    String host,
    int port,
    String servedModelName,
    Path modelDir,
    List<String> loraNames,
    int blockSize,
    int numBlocks,
    int maxNumSeqs,
    TimingModel timing,
    String hashSeed,
    VllmEventEncoder.Format eventFormat,
    int zmqPort,
    int replayPort,
    String topic,
    int dpRank,
    long seed,
    String registryUrl,
    String workerId,
    String advertiseHost) {

  public SimOptions {
    loraNames = loraNames == null ? List.of() : List.copyOf(loraNames);
    if (numBlocks <= 0) {
      throw new IllegalArgumentException("numBlocks must be positive");
    }
    if (blockSize < 0) {
      throw new IllegalArgumentException("blockSize must be positive (0 = dialect default)");
    }
  }

  /** vLLM dialect, random ports, 4096 blocks, 256 sequences, llm-d's 8B/H100 timing. */
  public static SimOptions defaults() {
    return new SimOptions(
        Dialect.VLLM,
        "127.0.0.1",
        0,
        null,
        null,
        List.of(),
        0,
        4096,
        256,
        TimingModel.DEFAULT,
        null,
        VllmEventEncoder.Format.ARRAY,
        0,
        0,
        "",
        0,
        0,
        null,
        null,
        null);
  }

  /** The block size in effect. */
  public int effectiveBlockSize() {
    return blockSize > 0 ? blockSize : dialect.defaultBlockSize();
  }

  /** The served model name in effect. */
  public String effectiveModelName() {
    if (servedModelName != null) {
      return servedModelName;
    }
    if (modelDir != null && modelDir.getFileName() != null) {
      return modelDir.getFileName().toString();
    }
    return "sim-model";
  }

  public SimOptions withDialect(Dialect d) {
    Builder b = toBuilder();
    b.dialect = d;
    return b.build();
  }

  public SimOptions withHost(String h) {
    Builder b = toBuilder();
    b.host = h;
    return b.build();
  }

  public SimOptions withPort(int p) {
    Builder b = toBuilder();
    b.port = p;
    return b.build();
  }

  public SimOptions withServedModelName(String name) {
    Builder b = toBuilder();
    b.servedModelName = name;
    return b.build();
  }

  public SimOptions withModelDir(Path dir) {
    Builder b = toBuilder();
    b.modelDir = dir;
    return b.build();
  }

  public SimOptions withLoraNames(List<String> names) {
    Builder b = toBuilder();
    b.loraNames = names;
    return b.build();
  }

  public SimOptions withBlockSize(int size) {
    Builder b = toBuilder();
    b.blockSize = size;
    return b.build();
  }

  public SimOptions withNumBlocks(int n) {
    Builder b = toBuilder();
    b.numBlocks = n;
    return b.build();
  }

  public SimOptions withMaxNumSeqs(int n) {
    Builder b = toBuilder();
    b.maxNumSeqs = n;
    return b.build();
  }

  public SimOptions withTiming(TimingModel t) {
    Builder b = toBuilder();
    b.timing = t;
    return b.build();
  }

  public SimOptions withHashSeed(String s) {
    Builder b = toBuilder();
    b.hashSeed = s;
    return b.build();
  }

  public SimOptions withEventFormat(VllmEventEncoder.Format f) {
    Builder b = toBuilder();
    b.eventFormat = f;
    return b.build();
  }

  public SimOptions withZmqPorts(int pub, int replay) {
    Builder b = toBuilder();
    b.zmqPort = pub;
    b.replayPort = replay;
    return b.build();
  }

  public SimOptions withTopic(String t) {
    Builder b = toBuilder();
    b.topic = t;
    return b.build();
  }

  public SimOptions withDpRank(int r) {
    Builder b = toBuilder();
    b.dpRank = r;
    return b.build();
  }

  public SimOptions withSeed(long s) {
    Builder b = toBuilder();
    b.seed = s;
    return b.build();
  }

  public SimOptions withRegistry(String url, String id, String advertise) {
    Builder b = toBuilder();
    b.registryUrl = url;
    b.workerId = id;
    b.advertiseHost = advertise;
    return b.build();
  }

  /** A mutable copy of these options; the withers change one or two fields of it. */
  private Builder toBuilder() {
    Builder b = new Builder();
    b.dialect = dialect;
    b.host = host;
    b.port = port;
    b.servedModelName = servedModelName;
    b.modelDir = modelDir;
    b.loraNames = loraNames;
    b.blockSize = blockSize;
    b.numBlocks = numBlocks;
    b.maxNumSeqs = maxNumSeqs;
    b.timing = timing;
    b.hashSeed = hashSeed;
    b.eventFormat = eventFormat;
    b.zmqPort = zmqPort;
    b.replayPort = replayPort;
    b.topic = topic;
    b.dpRank = dpRank;
    b.seed = seed;
    b.registryUrl = registryUrl;
    b.workerId = workerId;
    b.advertiseHost = advertiseHost;
    return b;
  }

  /** Holds the components while a wither changes some, so each wither names only what it sets. */
  private static final class Builder {
    private Dialect dialect;
    private String host;
    private int port;
    private String servedModelName;
    private Path modelDir;
    private List<String> loraNames;
    private int blockSize;
    private int numBlocks;
    private int maxNumSeqs;
    private TimingModel timing;
    private String hashSeed;
    private VllmEventEncoder.Format eventFormat;
    private int zmqPort;
    private int replayPort;
    private String topic;
    private int dpRank;
    private long seed;
    private String registryUrl;
    private String workerId;
    private String advertiseHost;

    SimOptions build() {
      return new SimOptions(
          dialect,
          host,
          port,
          servedModelName,
          modelDir,
          loraNames,
          blockSize,
          numBlocks,
          maxNumSeqs,
          timing,
          hashSeed,
          eventFormat,
          zmqPort,
          replayPort,
          topic,
          dpRank,
          seed,
          registryUrl,
          workerId,
          advertiseHost);
    }
  }
}
