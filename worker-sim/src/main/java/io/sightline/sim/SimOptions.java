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
    return new SimOptions(
        d,
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

  public SimOptions withHost(String h) {
    return new SimOptions(
        dialect,
        h,
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

  public SimOptions withPort(int p) {
    return new SimOptions(
        dialect,
        host,
        p,
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

  public SimOptions withServedModelName(String name) {
    return new SimOptions(
        dialect,
        host,
        port,
        name,
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

  public SimOptions withModelDir(Path dir) {
    return new SimOptions(
        dialect,
        host,
        port,
        servedModelName,
        dir,
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

  public SimOptions withLoraNames(List<String> names) {
    return new SimOptions(
        dialect,
        host,
        port,
        servedModelName,
        modelDir,
        names,
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

  public SimOptions withBlockSize(int b) {
    return new SimOptions(
        dialect,
        host,
        port,
        servedModelName,
        modelDir,
        loraNames,
        b,
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

  public SimOptions withNumBlocks(int n) {
    return new SimOptions(
        dialect,
        host,
        port,
        servedModelName,
        modelDir,
        loraNames,
        blockSize,
        n,
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

  public SimOptions withMaxNumSeqs(int n) {
    return new SimOptions(
        dialect,
        host,
        port,
        servedModelName,
        modelDir,
        loraNames,
        blockSize,
        numBlocks,
        n,
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

  public SimOptions withTiming(TimingModel t) {
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
        t,
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

  public SimOptions withHashSeed(String s) {
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
        s,
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

  public SimOptions withEventFormat(VllmEventEncoder.Format f) {
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
        f,
        zmqPort,
        replayPort,
        topic,
        dpRank,
        seed,
        registryUrl,
        workerId,
        advertiseHost);
  }

  public SimOptions withZmqPorts(int pub, int replay) {
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
        pub,
        replay,
        topic,
        dpRank,
        seed,
        registryUrl,
        workerId,
        advertiseHost);
  }

  public SimOptions withTopic(String t) {
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
        t,
        dpRank,
        seed,
        registryUrl,
        workerId,
        advertiseHost);
  }

  public SimOptions withDpRank(int r) {
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
        r,
        seed,
        registryUrl,
        workerId,
        advertiseHost);
  }

  public SimOptions withSeed(long s) {
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
        s,
        registryUrl,
        workerId,
        advertiseHost);
  }

  public SimOptions withRegistry(String url, String id, String advertise) {
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
        url,
        id,
        advertise);
  }
}
