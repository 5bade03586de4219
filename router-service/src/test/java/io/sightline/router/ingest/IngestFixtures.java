package io.sightline.router.ingest;

import io.sightline.registry.client.RegistryClient;
import io.sightline.registry.client.RegistryEvent;
import io.sightline.registry.client.RegistryListener;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.router.model.KvEventSink;
import io.sightline.routing.event.KvEvent;
import io.sightline.routing.index.ApplyOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/** Test doubles at the edges of ingestion: a fixed registry and a recording sink. */
final class IngestFixtures {
  private IngestFixtures() {}

  /** A registry client over a mutable worker list. */
  static final class StaticRegistry implements RegistryClient {
    final List<WorkerInstance> workers = new CopyOnWriteArrayList<>();
    final List<RegistryListener> listeners = new CopyOnWriteArrayList<>();

    void put(WorkerInstance w) {
      workers.removeIf(x -> x.id().equals(w.id()));
      workers.add(w);
      listeners.forEach(l -> l.onEvent(new RegistryEvent.WorkerPut(w, null, 1)));
    }

    @Override
    public List<ModelCard> models() {
      return List.of();
    }

    @Override
    public Optional<ModelCard> model(String nameOrAlias) {
      return Optional.empty();
    }

    @Override
    public List<WorkerInstance> workers(String nameOrAlias) {
      return workers.stream().filter(w -> w.model().equals(nameOrAlias)).toList();
    }

    @Override
    public List<WorkerInstance> workers() {
      return List.copyOf(workers);
    }

    @Override
    public Optional<WorkerInstance> worker(String id) {
      return workers.stream().filter(w -> w.id().equals(id)).findFirst();
    }

    @Override
    public long revision() {
      return 1;
    }

    @Override
    public boolean connected() {
      return true;
    }

    @Override
    public AutoCloseable addListener(RegistryListener listener) {
      listeners.add(listener);
      return () -> listeners.remove(listener);
    }

    @Override
    public void close() {}
  }

  /** Records applied events; applies plane-sequence de-duplication like the index does. */
  static final class RecordingSink implements KvEventSink {
    final List<KvEvent> events = new CopyOnWriteArrayList<>();
    volatile long lastStream = -1;

    @Override
    public ApplyOutcome apply(KvEvent event, long streamSequence) {
      events.add(event);
      lastStream = Math.max(lastStream, streamSequence);
      return ApplyOutcome.APPLIED;
    }

    @Override
    public void resetWorker(String workerId, int dpRank) {}

    @Override
    public long lastStreamSequence() {
      return lastStream;
    }

    /** Engine hashes of the stored events, in order, "C" for clears. */
    List<String> trace() {
      return events.stream()
          .map(
              e ->
                  switch (e) {
                    case KvEvent.Stored s -> Long.toString(s.blockHashes()[0]);
                    case KvEvent.Removed r -> "-" + r.blockHashes()[0];
                    case KvEvent.Cleared c -> "C";
                  })
          .toList();
    }
  }

  /** A vLLM batch with one BlockStored of one 2-token block. */
  static byte[] vllmBatch(long hash) throws Exception {
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    p.packArrayHeader(3).packDouble(0).packArrayHeader(1);
    p.packArrayHeader(5).packString("BlockStored").packArrayHeader(1).packLong(hash).packNil();
    p.packArrayHeader(2).packInt(1).packInt(2).packInt(2);
    p.packInt(0);
    return p.toByteArray();
  }

  static void await(BooleanSupplier cond, Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within " + max);
      }
      Thread.sleep(20);
    }
  }
}
