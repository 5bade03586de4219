package io.sightline.sim;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.sightline.prompt.hf.HfModel;
import io.sightline.prompt.hf.HfModelException;
import io.sightline.prompt.hf.HfModels;
import io.sightline.routing.multimodal.spec.ModelProcessorSpec;
import io.sightline.routing.multimodal.spec.ProcessorSpecs;
import io.sightline.routing.prompt.ApproximateEncoder;
import io.sightline.routing.prompt.ImageTokenEstimator;
import io.sightline.routing.prompt.PromptEncoder;
import io.sightline.sim.cache.BlockSpec;
import io.sightline.sim.cache.CacheEvent;
import io.sightline.sim.cache.PrefixCache;
import io.sightline.sim.engine.BlockPlanner;
import io.sightline.sim.engine.Faults;
import io.sightline.sim.engine.SimEngine;
import io.sightline.sim.events.TrtllmEventQueue;
import io.sightline.sim.events.VllmZmqPublisher;
import io.sightline.sim.hash.ExtraKey;
import io.sightline.sim.hash.VllmBlockHasher;
import io.sightline.sim.http.Json;
import io.sightline.sim.prompt.ImageResolver;
import io.sightline.sim.prompt.SimPromptStage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One simulated engine: the OpenAI-compatible HTTP server, the prefix cache and scheduler, and the
 * KV event channel of its dialect (vLLM ZMQ PUB + replay, or TRT-LLM's polled queue). Start it with
 * {@link #start(SimOptions)}; many can run in one JVM (see {@link SimFleet}).
 *
 * <p>Lifecycle faults: {@link #crash()} drops every connection and closes the HTTP and event
 * sockets (clients see connection resets, then refused connections); {@link #restart()} brings the
 * worker back on the same ports with an empty cache and the event sequence reset to 0, and a
 * running worker restarted in place loses its in-flight requests the same way. {@link
 * #clearCache()} resets the prefix cache and announces it ({@code AllBlocksCleared}).
 */
public final class SimulatedWorker implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(SimulatedWorker.class.getName());

  static {
    // SSE writes one small chunk per token: without TCP_NODELAY, Nagle + delayed ACK add ~40 ms.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private final SimOptions options;
  private final SimPromptStage promptStage;
  private final Faults faults = new Faults();
  private final PrefixCache cache;
  private final SimEngine engine;
  private final TrtllmEventQueue trtEvents;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final String modelName;
  private volatile VllmZmqPublisher publisher;
  private volatile HttpServer server;
  private volatile boolean up;
  private volatile long readyAtMillis;
  private int httpPort;
  private int zmqPort;
  private int replayPort;
  private RegistryRegistration registration;

  private SimulatedWorker(SimOptions options) {
    this.options = options;
    this.modelName = options.effectiveModelName();
    int blockSize = options.effectiveBlockSize();
    this.promptStage = buildPromptStage(options);
    this.cache = new PrefixCache(options.numBlocks(), blockSize, this::dispatch);
    BlockPlanner planner =
        options.dialect() == Dialect.VLLM
            ? new BlockPlanner.Vllm(VllmBlockHasher.withSeed(options.hashSeed()), blockSize)
            : new BlockPlanner.Trtllm(blockSize);
    this.engine =
        new SimEngine(
            cache, planner, options.timing(), options.maxNumSeqs(), options.seed(), faults);
    this.trtEvents =
        options.dialect() == Dialect.TRTLLM
            ? new TrtllmEventQueue(
                options.numBlocks(), options.numBlocks() * blockSize, options.dpRank(), 100_000)
            : null;
    if (trtEvents != null) {
      trtEvents.setDropFraction(faults::dropEventFraction);
    }
    this.zmqPort = options.zmqPort();
    this.replayPort = options.replayPort();
    this.httpPort = options.port();
  }

  /** Starts a worker; returns once it accepts connections. */
  public static SimulatedWorker start(SimOptions options) throws IOException {
    SimulatedWorker w = new SimulatedWorker(options);
    try {
      w.bringUp();
    } catch (IOException | RuntimeException e) {
      w.close();
      throw e;
    }
    if (options.registryUrl() != null) {
      w.registration = new RegistryRegistration(w, options);
      w.registration.start();
    }
    return w;
  }

  private static SimPromptStage buildPromptStage(SimOptions options) {
    boolean uuids = options.dialect() == Dialect.VLLM;
    if (options.modelDir() == null) {
      return new SimPromptStage(
          new ApproximateEncoder(),
          null,
          ImageTokenEstimator.forFamily(""),
          new ImageResolver(),
          uuids);
    }
    HfModel model;
    try {
      model = HfModels.load(options.modelDir());
    } catch (HfModelException e) {
      throw new IllegalArgumentException(
          "cannot load model directory " + options.modelDir() + ": " + e.getMessage(), e);
    }
    PromptEncoder encoder = model.strictEncoder();
    ModelProcessorSpec spec = ProcessorSpecs.fromModelDirectory(options.modelDir()).orElse(null);
    return new SimPromptStage(
        encoder, spec, model.imageTokenEstimator(), new ImageResolver(), uuids);
  }

  private synchronized void bringUp() throws IOException {
    if (options.dialect() == Dialect.VLLM && zmqPort >= 0) {
      publisher =
          new VllmZmqPublisher(
              options.host(),
              zmqPort,
              replayPort,
              options.topic(),
              options.eventFormat(),
              options.effectiveBlockSize(),
              options.dpRank(),
              10_000);
      publisher.setDropFraction(faults::dropEventFraction);
      zmqPort = publisher.pubPort();
      replayPort = publisher.replayPort();
    }
    HttpServer s = HttpServer.create(new InetSocketAddress(options.host(), httpPort), 1024);
    s.setExecutor(executor);
    s.createContext("/", new SimHttpHandler(this));
    s.start();
    server = s;
    httpPort = s.getAddress().getPort();
    readyAtMillis = System.currentTimeMillis() + faults.slowStartMs();
    up = true;
  }

  private void dispatch(List<CacheEvent> events) {
    VllmZmqPublisher p = publisher;
    if (p != null) {
      p.publish(events);
    }
    if (trtEvents != null) {
      trtEvents.publish(events);
    }
  }

  /** Simulates an engine crash: connections drop, HTTP and event sockets close. */
  public synchronized void crash() {
    if (!up) {
      return;
    }
    up = false;
    engine.abortAll();
    HttpServer s = server;
    server = null;
    if (s != null) {
      s.stop(0);
    }
    VllmZmqPublisher p = publisher;
    publisher = null;
    if (p != null) {
      p.close();
    }
    Long restartMs = faults.crashRestartMs();
    faults.crashAfterTokens(null, null);
    if (restartMs != null) {
      Thread.ofVirtual()
          .start(
              () -> {
                try {
                  Thread.sleep(restartMs);
                  restart();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } catch (IOException | RuntimeException e) {
                  LOG.log(Level.WARNING, "restart after crash failed", e);
                }
              });
    }
  }

  /**
   * Restarts the engine: in-flight requests are aborted, the cache is emptied without events, the
   * event sequence restarts at 0 (TRT-LLM: {@code event_id} 0 with a {@code created} event), and a
   * configured slow start applies. A crashed worker comes back on the same ports.
   */
  public synchronized void restart() throws IOException {
    engine.abortAll();
    cache.resetSilently();
    engine.resetCounters();
    if (trtEvents != null) {
      trtEvents.restart();
    }
    if (!up) {
      bringUp();
    } else {
      if (publisher != null) {
        publisher.restart();
      }
      readyAtMillis = System.currentTimeMillis() + faults.slowStartMs();
    }
  }

  /** Resets the prefix cache ({@code AllBlocksCleared} on vLLM, removals on TRT-LLM). */
  public void clearCache() {
    cache.clear();
  }

  public Faults faults() {
    return faults;
  }

  /**
   * No-op kept for compatibility: every fault setting, including the event-drop fraction, is read
   * live from {@link #faults()}.
   */
  public void applyFaults() {}

  public SimOptions options() {
    return options;
  }

  public Dialect dialect() {
    return options.dialect();
  }

  public String modelName() {
    return modelName;
  }

  public SimEngine engine() {
    return engine;
  }

  public PrefixCache cache() {
    return cache;
  }

  SimPromptStage promptStage() {
    return promptStage;
  }

  TrtllmEventQueue trtEvents() {
    return trtEvents;
  }

  /** The vLLM event publisher, or null (TRT-LLM, events off, crashed). */
  public VllmZmqPublisher publisher() {
    return publisher;
  }

  public boolean isUp() {
    return up;
  }

  /** True when up and past any slow start. */
  public boolean isReady() {
    return up && System.currentTimeMillis() >= readyAtMillis;
  }

  public int port() {
    return httpPort;
  }

  public String baseUrl() {
    return "http://" + hostForUrl() + ":" + httpPort;
  }

  /** ZMQ endpoint a subscriber connects to, or null without a publisher. */
  public String eventEndpoint() {
    return zmqPort > 0 ? "tcp://" + hostForUrl() + ":" + zmqPort : null;
  }

  /** ZMQ replay endpoint, or null. */
  public String replayEndpoint() {
    return replayPort > 0 ? "tcp://" + hostForUrl() + ":" + replayPort : null;
  }

  public int zmqPort() {
    return zmqPort;
  }

  public int replayPort() {
    return replayPort;
  }

  String hostForUrl() {
    if (options.advertiseHost() != null) {
      return options.advertiseHost();
    }
    String h = options.host();
    return h == null || h.equals("0.0.0.0") || h.equals("*") ? "127.0.0.1" : h;
  }

  /** Worker id used for registration and logs. */
  public String workerId() {
    return options.workerId() != null ? options.workerId() : "sim-" + hostForUrl() + "-" + httpPort;
  }

  /** The true cache contents as JSON (the {@code GET /sim/cache} body). */
  public ObjectNode cacheJson() {
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("dialect", options.dialect().wireName());
    root.put("block_size", cache.blockSize());
    root.put("num_blocks", cache.numBlocks());
    root.put("used_blocks", cache.usedBlocks());
    ArrayNode blocks = root.putArray("blocks");
    for (PrefixCache.CachedBlock b : cache.snapshot()) {
      ObjectNode o = blocks.addObject();
      o.put("physical_id", b.physicalId());
      o.put("hash", Long.toUnsignedString(b.id().eventHash()));
      if (b.id().digest() != null) {
        o.put("digest", b.id().toString());
      }
      if (b.parent() == null) {
        o.putNull("parent");
      } else {
        o.put("parent", Long.toUnsignedString(b.parent().eventHash()));
      }
      o.put("ref_count", b.refCount());
      ArrayNode tokens = o.putArray("token_ids");
      for (int t : b.spec().tokens()) {
        tokens.add(Integer.toUnsignedLong(t));
      }
      ArrayNode extra = o.putArray("extra_keys");
      for (ExtraKey k : b.spec().extraKeys()) {
        switch (k) {
          case ExtraKey.Text t -> extra.add(t.value());
          case ExtraKey.Mm m -> extra.addArray().add(m.identifier()).add(m.offset());
        }
      }
      ArrayNode mm = o.putArray("mm_keys");
      for (BlockSpec.MmKeyInfo k : b.spec().mmKeys()) {
        mm.addObject().put("hash", k.hash()).put("start_offset", k.startOffset());
      }
      if (b.spec().loraName() != null) {
        o.put("lora_name", b.spec().loraName());
      }
    }
    return root;
  }

  /** Waits until every queued KV event batch has been handed to the socket (tests). */
  public void flushEvents() {
    VllmZmqPublisher p = publisher;
    long deadline = System.currentTimeMillis() + 5000;
    while (p != null && !p.idle() && System.currentTimeMillis() < deadline) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @Override
  public synchronized void close() {
    if (registration != null) {
      registration.stop();
    }
    up = false;
    engine.abortAll();
    if (server != null) {
      server.stop(0);
      server = null;
    }
    if (publisher != null) {
      publisher.close();
      publisher = null;
    }
    executor.shutdownNow();
  }

  static UncheckedIOException unchecked(IOException e) {
    return new UncheckedIOException(e);
  }
}
