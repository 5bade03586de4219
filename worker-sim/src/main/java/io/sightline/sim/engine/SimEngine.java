package io.sightline.sim.engine;

import io.sightline.sim.cache.BlockSpec;
import io.sightline.sim.cache.PrefixCache;
import io.sightline.sim.prompt.PreparedPrompt;
import io.sightline.sim.prompt.SimRequestException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The simulated scheduler: first-come-first-served admission of at most {@code maxNumSeqs} running
 * requests, each holding KV blocks for its prompt and its {@code max_tokens} output from admission
 * to completion (no preemption); a request that does not fit waits in the queue, as in vLLM when
 * the block pool is exhausted. On admission the prompt's hashed blocks are matched against the
 * prefix cache, the uncached ones are allocated (evicting LRU free blocks) and cached. The request
 * then sleeps the {@link TimingModel}'s prefill time for its uncached tokens and produces one token
 * per inter-token latency.
 *
 * <p>Output text is deterministic: words drawn from a fixed list by a {@link SplittableRandom}
 * seeded with the request's {@code seed}, or with the engine seed mixed with the prompt ids.
 *
 * <p>Each request runs on its caller's (virtual) thread; the engine only coordinates admission.
 */
public final class SimEngine {

  /** Receives a request's progress. */
  public interface TokenSink {
    /** Called once after admission and prefill, before the first token. */
    void onStart(int cachedTokens) throws IOException;

    /** Called for every generated token ({@code index} from 0). */
    void onToken(int index, String text) throws IOException;
  }

  /** The outcome of a finished request. */
  public record Result(int promptTokens, int cachedTokens, int completionTokens, String text) {}

  /** Thrown into a running request when its worker crashes or restarts. */
  public static final class AbortedException extends Exception {
    public AbortedException(String message) {
      super(message);
    }
  }

  /** Thrown when a crash fault fires in this request's stream. */
  public static final class CrashException extends Exception {
    public CrashException() {
      super("injected crash");
    }
  }

  private static final String[] WORDS = {
    "the",
    "cache",
    "block",
    "router",
    "image",
    "token",
    "worker",
    "prefix",
    "model",
    "request",
    "latency",
    "queue",
    "vision",
    "prompt",
    "hash",
    "event",
    "stream",
    "batch",
    "simulated",
    "answer",
    "is",
    "a",
    "of",
    "and",
    "to",
    "in",
    "shows",
    "with",
    "for",
    "this",
    "that",
    "on"
  };

  private final PrefixCache cache;
  private final BlockPlanner planner;
  private final Faults faults;
  private final int maxNumSeqs;
  private final long seed;
  private volatile TimingModel timing;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final ArrayDeque<Object> waiting = new ArrayDeque<>();
  private int running;
  private volatile long epoch;

  private final AtomicLong prefixQueries = new AtomicLong();
  private final AtomicLong prefixHits = new AtomicLong();
  private final AtomicLong promptTokensTotal = new AtomicLong();
  private final AtomicLong generationTokensTotal = new AtomicLong();
  private final AtomicLong requestsFinished = new AtomicLong();
  private final AtomicLong iterations = new AtomicLong();

  public SimEngine(
      PrefixCache cache,
      BlockPlanner planner,
      TimingModel timing,
      int maxNumSeqs,
      long seed,
      Faults faults) {
    if (maxNumSeqs <= 0) {
      throw new IllegalArgumentException("maxNumSeqs must be positive");
    }
    this.cache = cache;
    this.planner = planner;
    this.timing = timing;
    this.maxNumSeqs = maxNumSeqs;
    this.seed = seed;
    this.faults = faults;
  }

  public PrefixCache cache() {
    return cache;
  }

  public BlockPlanner planner() {
    return planner;
  }

  public TimingModel timing() {
    return timing;
  }

  public void setTiming(TimingModel timing) {
    this.timing = timing;
  }

  public int maxNumSeqs() {
    return maxNumSeqs;
  }

  /** Largest prompt + output the pool can ever hold, in tokens. */
  public int maxModelLen() {
    return cache.numBlocks() * cache.blockSize();
  }

  /**
   * Runs one request to completion on the calling thread.
   *
   * @throws SimRequestException when the request can never fit the cache
   * @throws AbortedException when the worker crashed/restarted meanwhile
   * @throws CrashException when an injected crash fires in this stream
   * @throws IOException from the sink (client went away)
   */
  public Result run(PreparedPrompt prompt, int maxTokens, Long requestSeed, TokenSink sink)
      throws SimRequestException,
          AbortedException,
          CrashException,
          IOException,
          InterruptedException {
    int n = prompt.length();
    if (n == 0) {
      throw SimRequestException.badRequest("the prompt is empty", "prompt");
    }
    int blockSize = cache.blockSize();
    long totalTokens = (long) n + maxTokens;
    if (totalTokens > maxModelLen()) {
      throw SimRequestException.badRequest(
          "This model's maximum context length is "
              + maxModelLen()
              + " tokens. However, you requested "
              + totalTokens
              + " tokens ("
              + n
              + " in the messages, "
              + maxTokens
              + " in the completion). Please reduce the length of the messages or completion.",
          "messages");
    }
    int totalBlocks = (int) ((totalTokens + blockSize - 1) / blockSize);
    List<BlockSpec> planned = planner.plan(prompt);
    int matchLimit = planner.matchLimit(prompt, planned);
    long myEpoch = epoch;

    PrefixCache.Allocation allocation;
    Object ticket = new Object();
    lock.lock();
    try {
      waiting.addLast(ticket);
      while (true) {
        if (epoch != myEpoch) {
          waiting.remove(ticket);
          changed.signalAll();
          throw new AbortedException("worker restarted");
        }
        if (waiting.peekFirst() == ticket && running < maxNumSeqs) {
          allocation = cache.allocate(planned, matchLimit, totalBlocks);
          if (allocation != null) {
            break;
          }
        }
        changed.await(50, TimeUnit.MILLISECONDS);
      }
      waiting.removeFirst();
      running++;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    try {
      int cached = allocation.matchedTokens();
      prefixQueries.addAndGet(n);
      prefixHits.addAndGet(cached);
      promptTokensTotal.addAndGet(n);
      iterations.incrementAndGet();
      sleepNanos(timing.prefillNanos(n - cached), myEpoch);
      sink.onStart(cached);
      long s = requestSeed != null ? requestSeed : seed ^ Arrays.hashCode(prompt.tokens());
      SplittableRandom random = new SplittableRandom(s);
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < maxTokens; i++) {
        if (i > 0) {
          sleepNanos(timing.interTokenNanos(), myEpoch);
        }
        Integer crashAt = faults.crashAfterTokens();
        if (crashAt != null && i >= crashAt) {
          throw new CrashException();
        }
        Integer hangAt = faults.hangAfterTokens();
        if (hangAt != null && i >= hangAt) {
          hang(myEpoch);
        }
        String word = WORDS[random.nextInt(WORDS.length)];
        String piece = i == 0 ? capitalize(word) : " " + word;
        text.append(piece);
        generationTokensTotal.incrementAndGet();
        sink.onToken(i, piece);
      }
      requestsFinished.incrementAndGet();
      return new Result(n, cached, maxTokens, text.toString());
    } finally {
      cache.free(allocation);
      lock.lock();
      try {
        running--;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  private void hang(long myEpoch) throws AbortedException, InterruptedException {
    long ms = faults.hangMs();
    var latch = faults.hangRelease();
    if (ms > 0) {
      latch.await(ms, TimeUnit.MILLISECONDS);
    } else {
      latch.await();
    }
    if (epoch != myEpoch) {
      throw new AbortedException("worker restarted");
    }
  }

  private void sleepNanos(long nanos, long myEpoch) throws AbortedException, InterruptedException {
    if (nanos > 0) {
      TimeUnit.NANOSECONDS.sleep(nanos);
    }
    if (epoch != myEpoch) {
      throw new AbortedException("worker restarted");
    }
  }

  /** Aborts every queued and running request (crash / restart). */
  public void abortAll() {
    lock.lock();
    try {
      epoch++;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    faults.releaseHangs();
  }

  /** Zeroes the counters (a restarted engine starts its metrics from scratch). */
  public void resetCounters() {
    prefixQueries.set(0);
    prefixHits.set(0);
    promptTokensTotal.set(0);
    generationTokensTotal.set(0);
    requestsFinished.set(0);
    iterations.set(0);
  }

  public int running() {
    lock.lock();
    try {
      return running;
    } finally {
      lock.unlock();
    }
  }

  public int waiting() {
    lock.lock();
    try {
      return waiting.size();
    } finally {
      lock.unlock();
    }
  }

  public long prefixQueries() {
    return prefixQueries.get();
  }

  public long prefixHits() {
    return prefixHits.get();
  }

  public long promptTokensTotal() {
    return promptTokensTotal.get();
  }

  public long generationTokensTotal() {
    return generationTokensTotal.get();
  }

  public long requestsFinished() {
    return requestsFinished.get();
  }

  public long iterations() {
    return iterations.get();
  }

  private static String capitalize(String w) {
    return Character.toUpperCase(w.charAt(0)) + w.substring(1);
  }
}
