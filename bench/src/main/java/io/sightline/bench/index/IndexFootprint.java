package io.sightline.bench.index;

import io.sightline.routing.index.IndexStats;
import io.sightline.routing.index.KvIndex;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Locale;

/**
 * Heap bytes per (block, worker) entry of the ~1M-entry Mooncake index ({@link IndexFixture}).
 *
 * <p>Method: build the fixture, force full GCs until used heap settles, read used heap; drop the
 * index (keeping everything else the fixture allocated, e.g. the trace) and read used heap again
 * the same way. The difference is the index's retained size; it is divided by the number of holder
 * entries (one per block, worker, tier) and by the number of radix nodes. Run with a fixed heap and
 * a non-concurrent collector so "used after GC" is stable: {@code java -Xms2g -Xmx2g
 * -XX:+UseSerialGC -cp bench/target/benchmarks.jar io.sightline.bench.index.IndexFootprint}.
 */
public final class IndexFootprint {
  private IndexFootprint() {}

  public static void main(String[] args) throws Exception {
    long target = args.length > 0 ? Long.parseLong(args[0]) : IndexFixture.TARGET_ENTRIES;
    MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
    IndexFixture fixture = IndexFixture.build(target);
    KvIndex index = fixture.index;
    fixture = null;
    IndexStats stats = index.stats();
    long withIndex = settledUsed(mem);
    // keep the object graph reachable until measured
    int workers = index.workers().size();
    index = null;
    long without = settledUsed(mem);
    long bytes = withIndex - without;
    System.out.printf(
        Locale.ROOT,
        "workers=%d nodes=%d entries=%d retained=%d bytes -> %.1f bytes/entry, %.1f bytes/node%n",
        workers,
        stats.nodes(),
        stats.entries(),
        bytes,
        (double) bytes / stats.entries(),
        (double) bytes / stats.nodes());
  }

  private static long settledUsed(MemoryMXBean mem) throws InterruptedException {
    long last = Long.MAX_VALUE;
    for (int i = 0; i < 10; i++) {
      System.gc();
      Thread.sleep(100);
      long used = mem.getHeapMemoryUsage().getUsed();
      if (Math.abs(last - used) < 64 * 1024) {
        return used;
      }
      last = used;
    }
    return last;
  }
}
