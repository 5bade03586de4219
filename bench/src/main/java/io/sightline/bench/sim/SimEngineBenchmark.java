package io.sightline.bench.sim;

import io.sightline.sim.cache.BlockSpec;
import io.sightline.sim.cache.PrefixCache;
import io.sightline.sim.engine.BlockPlanner;
import io.sightline.sim.hash.VllmBlockHasher;
import io.sightline.sim.prompt.PreparedPrompt;
import io.sightline.sim.prompt.SimImage;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Per-request cost of the worker simulator's engine path, without HTTP: vLLM {@code sha256_cbor}
 * hashing of one block, and planning (hashing) + cache allocation + free of a whole prompt on a
 * warm prefix cache (every block a hit) and a cold one (every block new, evicting). Shows the
 * simulator's own CPU cost per request, which bounds its throughput with zero delays.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SimEngineBenchmark {

  @Param({"1024"})
  int promptTokens;

  private final VllmBlockHasher hasher = VllmBlockHasher.withSeed("0");
  private final int[] block = new int[16];
  private BlockPlanner planner;
  private PreparedPrompt prompt;
  private PrefixCache warm;
  private PrefixCache cold;
  private int salt;

  @Setup
  public void setup() {
    for (int i = 0; i < 16; i++) {
      block[i] = 1000 + i;
    }
    planner = new BlockPlanner.Vllm(hasher, 16);
    prompt = prompt(0);
    warm = new PrefixCache(4096, 16, e -> {});
    List<BlockSpec> planned = planner.plan(prompt);
    warm.free(warm.allocate(planned, planned.size(), planned.size() + 1));
    cold = new PrefixCache(256, 16, e -> {});
  }

  private PreparedPrompt prompt(int variant) {
    int[] tokens = new int[promptTokens];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = 100 + (i * 7919 + variant) % 150_000;
    }
    // One 256-token image at offset 16: its blocks carry (identifier, offset) extra keys.
    SimImage image = new SimImage("0123456789abcdef".repeat(4), new byte[32], 448, 448);
    return new PreparedPrompt(
        tokens, List.of(new PreparedPrompt.MmItem(16, 256, image)), null, null, null);
  }

  @Benchmark
  public byte[] hashOneBlock() {
    return hasher.hashBlock(null, block, null);
  }

  @Benchmark
  public int planAllocateFreeWarm() {
    List<BlockSpec> planned = planner.plan(prompt);
    PrefixCache.Allocation a = warm.allocate(planned, planned.size() - 1, planned.size() + 1);
    warm.free(a);
    return a.matchedTokens();
  }

  @Benchmark
  public int planAllocateFreeCold() {
    List<BlockSpec> planned = planner.plan(prompt(++salt));
    PrefixCache.Allocation a = cold.allocate(planned, planned.size() - 1, planned.size() + 1);
    cold.free(a);
    return a.matchedTokens();
  }
}
