package io.sightline.bench.index;

import io.sightline.routing.index.OverlapScores;
import io.sightline.routing.selection.SelectionRequest;
import io.sightline.routing.selection.SelectionResult;
import io.sightline.routing.selection.WorkerCandidate;
import io.sightline.routing.selection.WorkerSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Query latency of a 512-block request against an index of ~1,000,000 (block, worker) entries over
 * 64 workers with Mooncake prefix sharing ({@link IndexFixture}), and the full selection (index
 * query + Dynamo cost over 64 candidates + picker). SampleTime mode reports p50/p99.
 *
 * <p>Queries are the first 512 blocks (16 Mooncake blocks) of trace requests that have at least 16
 * blocks, so most walks go deep (the worst case for the walk) before no worker can continue.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g"})
public class IndexQueryBenchmark {
  public static final int QUERY_BLOCKS = 512;

  IndexFixture fixture;
  long[][] queries;
  WorkerSelector selector;
  List<WorkerCandidate> candidates;
  int next;

  @Setup(Level.Trial)
  public void setup() {
    fixture = IndexFixture.build();
    List<int[]> longOnes = fixture.requestsWithAtLeast(QUERY_BLOCKS / IndexFixture.SUB);
    int n = Math.min(256, longOnes.size());
    queries = new long[n][];
    for (int i = 0; i < n; i++) {
      queries[i] = IndexFixture.localHashes(longOnes.get(i), QUERY_BLOCKS);
    }
    selector = WorkerSelector.builder(fixture.index).build();
    candidates = new ArrayList<>();
    for (int w = 0; w < IndexFixture.WORKERS; w++) {
      candidates.add(WorkerCandidate.of("w" + w, 0, "m"));
    }
  }

  private long[] nextQuery() {
    long[] q = queries[next];
    next = next + 1 == queries.length ? 0 : next + 1;
    return q;
  }

  @Benchmark
  public OverlapScores query() {
    return fixture.index.query(nextQuery());
  }

  @Benchmark
  public SelectionResult select() {
    long[] q = nextQuery();
    return selector.select(
        new SelectionRequest(
            "bench",
            "m",
            null,
            q,
            q.length * IndexFixture.BLOCK_SIZE,
            IndexFixture.BLOCK_SIZE,
            null),
        candidates);
  }
}
