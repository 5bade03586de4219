package io.sightline.bench.request;

import io.sightline.routing.expansion.ExpansionException;
import io.sightline.routing.expansion.ImageSlot;
import io.sightline.routing.expansion.MmScheme;
import io.sightline.routing.expansion.RoutingTokens;
import io.sightline.routing.hashing.BlockHasher;
import java.util.List;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Block-hashing throughput for an 8k-token prompt, reported in tokens per second ({@code
 * OperationsPerInvocation} = 8192 tokens): local + chained sequence hashes of plain tokens, and the
 * full request path for a multimodal prompt (expand 2 images of 2,691 tokens into routing tokens,
 * then hash; Gen-1 appends per-block mm_hashes, Gen-2 hashes pad tokens).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class BlockHashBenchmark {
  static final int TOKENS = 8192;

  @Param({"16", "64"})
  public int blockSize;

  private int[] prompt;
  private int[] mmPrompt;
  private List<ImageSlot> images;
  private BlockHasher hasher;

  @Setup
  public void setUp() {
    SplittableRandom rnd = new SplittableRandom(42);
    prompt = new int[TOKENS];
    for (int i = 0; i < TOKENS; i++) {
      prompt[i] = rnd.nextInt(151_000);
    }
    // 8192 routing tokens = 2810 text tokens + 2 placeholders expanded to 2691 each.
    int text = TOKENS - 2 * 2691;
    mmPrompt = new int[text + 2];
    for (int i = 0; i < mmPrompt.length; i++) {
      mmPrompt[i] = rnd.nextInt(151_000);
    }
    mmPrompt[100] = 151655;
    mmPrompt[1500] = 151655;
    images = List.of(new ImageSlot(rnd.nextLong(), 2691), new ImageSlot(rnd.nextLong(), 2691));
    hasher = BlockHasher.of(blockSize);
  }

  @Benchmark
  @OperationsPerInvocation(TOKENS)
  public long[] textPrompt() {
    return BlockHasher.sequenceHashes(hasher.localHashes(prompt));
  }

  @Benchmark
  @OperationsPerInvocation(TOKENS)
  public long[] gen1Images() throws ExpansionException {
    RoutingTokens rt =
        RoutingTokens.expand(mmPrompt, 151655, images, MmScheme.GEN1, OptionalInt.empty());
    return BlockHasher.sequenceHashes(rt.localHashes(hasher));
  }

  @Benchmark
  @OperationsPerInvocation(TOKENS)
  public long[] gen2Images() throws ExpansionException {
    RoutingTokens rt =
        RoutingTokens.expand(mmPrompt, 151655, images, MmScheme.GEN2, OptionalInt.empty());
    return BlockHasher.sequenceHashes(rt.localHashes(hasher));
  }
}
