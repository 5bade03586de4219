package io.sightline.registry.store;

import static io.sightline.registry.Fixtures.card;
import static io.sightline.registry.Fixtures.leased;
import static io.sightline.registry.Fixtures.worker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InMemoryRegistryStoreTest extends RegistryStoreContract {
  @TempDir Path dir;

  @Override
  protected RegistryStore newStore() {
    return new InMemoryRegistryStore();
  }

  @Test
  void fileKeepsCardsStaticWorkersAndRevisionAcrossRestarts() {
    Path file = dir.resolve("registry.json");
    long last;
    try (InMemoryRegistryStore s = new InMemoryRegistryStore(file, 100, Duration.ofMillis(50))) {
      s.putModel(card("m", "alias"), RegistryStore.ANY_REVISION);
      s.putWorker(worker("static", "m"), RegistryStore.ANY_REVISION);
      last = s.putWorker(leased("leased", "m", 10), RegistryStore.ANY_REVISION);
    }
    try (InMemoryRegistryStore s = new InMemoryRegistryStore(file, 100, Duration.ofMillis(50))) {
      assertThat(s.model("m").orElseThrow().value()).isEqualTo(card("m", "alias"));
      assertThat(s.worker("static")).isPresent();
      assertThat(s.worker("leased")).as("leased workers re-register after a restart").isEmpty();
      assertThat(s.keepAlive("leased")).isFalse();
      assertThat(s.snapshot().revision()).isGreaterThanOrEqualTo(last);
      long next = s.putModel(card("n"), RegistryStore.ANY_REVISION);
      assertThat(next).isGreaterThan(last);
      // history does not survive a restart: resuming from before it must resync
      AtomicLong compacted = new AtomicLong(-1);
      s.watch(
          1,
          new StoreWatcher() {
            @Override
            public void onEvents(List<StoreEvent> events) {}

            @Override
            public void onCompacted(long compactRevision) {
              compacted.set(compactRevision);
            }

            @Override
            public void onError(Throwable error) {}
          });
      await().atMost(Duration.ofSeconds(2)).until(() -> compacted.get() >= 0);
    }
  }

  @Test
  void unwritableFileRefusesTheWriteAndChangesNothing() throws Exception {
    Path file = dir.resolve("registry.json");
    try (InMemoryRegistryStore s = new InMemoryRegistryStore(file, 100, Duration.ofMillis(50))) {
      s.putModel(card("m"), RegistryStore.ANY_REVISION);
      long rev = s.snapshot().revision();
      // replace the target's directory entry with a directory, so the atomic move fails
      Files.delete(file);
      Files.createDirectory(file);
      Files.writeString(file.resolve("blocker"), "x");
      assertThatThrownBy(() -> s.putModel(card("n"), RegistryStore.ANY_REVISION))
          .isInstanceOf(StoreUnavailableException.class);
      assertThat(s.model("n")).isEmpty();
      assertThat(s.snapshot().revision()).isEqualTo(rev);
    }
  }

  @Test
  void watchFromBeforeTheRetainedHistoryReportsCompaction() {
    try (InMemoryRegistryStore s = new InMemoryRegistryStore(null, 3, Duration.ofMillis(50))) {
      for (int i = 0; i < 6; i++) {
        s.putModel(card("m" + i), RegistryStore.ANY_REVISION);
      }
      List<Long> compactions = new CopyOnWriteArrayList<>();
      s.watch(
          2,
          new StoreWatcher() {
            @Override
            public void onEvents(List<StoreEvent> events) {
              throw new AssertionError("must not replay a partial history");
            }

            @Override
            public void onCompacted(long compactRevision) {
              compactions.add(compactRevision);
            }

            @Override
            public void onError(Throwable error) {}
          });
      await().atMost(Duration.ofSeconds(2)).until(() -> !compactions.isEmpty());
      assertThat(compactions.get(0)).isEqualTo(3);
    }
  }
}
