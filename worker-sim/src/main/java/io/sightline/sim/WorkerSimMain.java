package io.sightline.sim;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.sightline.sim.engine.TimingModel;
import io.sightline.sim.events.VllmEventEncoder;
import io.sightline.sim.http.Json;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Command line: runs one or more simulated workers until killed. After start it prints one line
 * {@code SIM-READY <json>} on stdout (the workers' URLs and event endpoints), which {@link
 * WorkerSimProcess} waits for.
 */
@Command(
    name = "worker-sim",
    mixinStandardHelpOptions = true,
    description = "Simulated vLLM / TensorRT-LLM workers with a real prefix cache and KV events.")
public final class WorkerSimMain implements Callable<Integer> {
  @Option(names = "--workers", defaultValue = "1", description = "Number of workers.")
  int workers;

  @Option(names = "--host", defaultValue = "127.0.0.1", description = "Interface to bind.")
  String host;

  @Option(
      names = "--base-port",
      defaultValue = "0",
      description = "HTTP port of worker 0 (worker i: +i); 0 = random.")
  int basePort;

  @Option(
      names = "--zmq-base-port",
      defaultValue = "0",
      description = "vLLM KV event PUB port of worker 0; 0 random, -1 off.")
  int zmqBasePort;

  @Option(
      names = "--replay-base-port",
      defaultValue = "0",
      description = "vLLM replay ROUTER port of worker 0; 0 random, -1 off.")
  int replayBasePort;

  @Option(names = "--dialect", defaultValue = "vllm", description = "vllm | trtllm")
  String dialect;

  @Option(names = "--model-dir", description = "Hugging Face model directory (tokenizer etc.).")
  Path modelDir;

  @Option(names = "--served-model-name", description = "Model id to serve.")
  String servedModelName;

  @Option(names = "--lora", split = ",", description = "LoRA adapter names served.")
  List<String> loras = List.of();

  @Option(names = "--block-size", defaultValue = "0", description = "0 = 16 (vLLM) / 32 (TRT).")
  int blockSize;

  @Option(names = "--num-blocks", defaultValue = "4096", description = "KV blocks per worker.")
  int numBlocks;

  @Option(names = "--max-num-seqs", defaultValue = "256", description = "Concurrent requests.")
  int maxNumSeqs;

  @Option(names = "--prefill-overhead-ms", defaultValue = "30")
  double prefillOverheadMs;

  @Option(names = "--prefill-per-token-us", defaultValue = "250")
  double prefillPerTokenUs;

  @Option(names = "--itl-ms", defaultValue = "12", description = "Inter-token latency.")
  double itlMs;

  @Option(
      names = "--speedup",
      defaultValue = "1",
      description = "Divide all latencies by this; 'Infinity' for none.")
  double speedup;

  @Option(names = "--hash-seed", description = "PYTHONHASHSEED for vLLM block hashes.")
  String hashSeed;

  @Option(names = "--event-format", defaultValue = "array", description = "array | map")
  String eventFormat;

  @Option(names = "--topic", defaultValue = "", description = "vLLM event topic frame.")
  String topic;

  @Option(names = "--seed", defaultValue = "0", description = "Output text seed.")
  long seed;

  @Option(names = "--registry", description = "Registry base URL to self-register with.")
  String registry;

  @Option(
      names = "--registry-token",
      description = "Registry admin token (else $SIGHTLINE_REGISTRY_TOKEN).")
  String registryToken;

  @Option(names = "--worker-id", description = "Worker id prefix for registration.")
  String workerId;

  @Option(names = "--advertise-host", description = "Host name others reach the workers by.")
  String advertiseHost;

  @Override
  public Integer call() throws Exception {
    if (registryToken != null) {
      System.setProperty("sightline.registry.token", registryToken);
    }
    SimOptions options =
        SimOptions.defaults()
            .withDialect(Dialect.parse(dialect))
            .withHost(host)
            .withPort(basePort)
            .withZmqPorts(zmqBasePort, replayBasePort)
            .withModelDir(modelDir)
            .withServedModelName(servedModelName)
            .withLoraNames(loras)
            .withBlockSize(blockSize)
            .withNumBlocks(numBlocks)
            .withMaxNumSeqs(maxNumSeqs)
            .withTiming(new TimingModel(prefillOverheadMs, prefillPerTokenUs, itlMs, speedup))
            .withHashSeed(hashSeed)
            .withEventFormat(
                VllmEventEncoder.Format.valueOf(eventFormat.toUpperCase(java.util.Locale.ROOT)))
            .withTopic(topic)
            .withSeed(seed)
            .withRegistry(registry, workerId, advertiseHost);
    SimFleet fleet = SimFleet.start(options, workers);
    CountDownLatch done = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  fleet.close();
                  done.countDown();
                }));
    ArrayNode ready = Json.MAPPER.createArrayNode();
    for (SimulatedWorker w : fleet.workers()) {
      var o = ready.addObject();
      o.put("id", w.workerId());
      o.put("dialect", w.dialect().wireName());
      o.put("model", w.modelName());
      o.put("base_url", w.baseUrl());
      o.put("block_size", w.cache().blockSize());
      if (w.eventEndpoint() != null) {
        o.put("kv_events", w.eventEndpoint());
      }
      if (w.replayEndpoint() != null) {
        o.put("kv_replay", w.replayEndpoint());
      }
    }
    System.out.println("SIM-READY " + Json.MAPPER.writeValueAsString(ready));
    System.out.flush();
    done.await();
    return 0;
  }

  public static void main(String[] args) {
    CommandLine cli = new CommandLine(new WorkerSimMain());
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    int code = cli.execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }
}
