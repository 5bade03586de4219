package io.sightline.bench.index;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Event apply throughput in blocks per second against the ~1M-entry Mooncake index ({@link
 * IndexFixture}). Each invocation applies one {@code BlockStored} of {@value #BLOCKS} blocks (4
 * Mooncake blocks of a trace request: token ids → XXH3 local hashes → radix walk → holder entries
 * and engine-hash map) and the matching {@code BlockRemoved}, so the index stays at its size; the
 * score counts both, i.e. {@value #OPS} block operations per invocation. Each JMH thread is its own
 * worker (events of one worker are ordered), so {@code -t 2} measures two workers applying in
 * parallel.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g"})
public class IndexApplyBenchmark {
  static final int MOONCAKE_BLOCKS = 4;
  static final int BLOCKS = MOONCAKE_BLOCKS * IndexFixture.SUB;
  static final int OPS = 2 * BLOCKS;

  @State(Scope.Benchmark)
  public static class Shared {
    IndexFixture fixture;
    final AtomicInteger workers = new AtomicInteger();

    @Setup(Level.Trial)
    public void setup() {
      fixture = IndexFixture.build();
    }
  }

  @State(Scope.Thread)
  public static class PerWorker {
    KvEvent.Stored[] stores;
    KvEvent.Removed[] removes;
    int next;

    @Setup(Level.Trial)
    public void setup(Shared shared) {
      String worker = "apply-" + shared.workers.getAndIncrement();
      List<int[]> reqs = shared.fixture.requestsWithAtLeast(MOONCAKE_BLOCKS);
      int n = Math.min(512, reqs.size());
      stores = new KvEvent.Stored[n];
      removes = new KvEvent.Removed[n];
      for (int i = 0; i < n; i++) {
        stores[i] = IndexFixture.storedEvent(worker, reqs.get(i), 0, MOONCAKE_BLOCKS, 0, null);
        removes[i] =
            new KvEvent.Removed(worker, 0, -1, StorageTier.DEVICE, stores[i].blockHashes());
      }
    }
  }

  @Benchmark
  @OperationsPerInvocation(OPS)
  public void storeThenRemove(Shared shared, PerWorker w) {
    int i = w.next;
    w.next = i + 1 == w.stores.length ? 0 : i + 1;
    shared.fixture.index.apply(w.stores[i]);
    shared.fixture.index.apply(w.removes[i]);
  }
}
