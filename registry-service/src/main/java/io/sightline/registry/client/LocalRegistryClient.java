package io.sightline.registry.client;

import io.sightline.registry.store.RegistryStore;
import io.sightline.registry.store.StoreEvent;
import io.sightline.registry.store.StoreWatch;
import io.sightline.registry.store.StoreWatcher;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RegistryClient} over a {@link RegistryStore} in the same JVM (standalone app, or a router
 * or gateway that talks to etcd directly).
 *
 * <p>Start-up loads a snapshot and watches from the revision after it. All cache mutations run on
 * one event thread, in revision order. Failure handling:
 *
 * <ul>
 *   <li>watch error (etcd down, connection reset) → {@link #connected()} false, the cache keeps
 *       serving the last fleet, and the watch is re-opened from {@code revision() + 1} with
 *       exponential backoff (initial {@code retryDelay}, capped at {@code maxRetryDelay});
 *   <li>history compacted → reload a snapshot and emit the differences;
 *   <li>a periodic health probe (every {@code probeInterval}) notices an outage even when the
 *       store's own watch retries silently (jetcd does), and re-opens the watch when the store is
 *       back, so the cache converges within one probe interval of recovery.
 * </ul>
 */
public final class LocalRegistryClient extends CachingRegistryClient {
  private static final Logger LOG = LoggerFactory.getLogger(LocalRegistryClient.class);

  private final RegistryStore store;
  private final ScheduledExecutorService events;
  private final Duration retryDelay;
  private final Duration maxRetryDelay;
  private volatile boolean closed;
  private StoreWatch watch;
  private boolean loaded;
  private long generation;
  private Duration nextDelay;

  /** A client with 200 ms initial retry delay, 5 s maximum, and a 1 s health probe. */
  public LocalRegistryClient(RegistryStore store) {
    this(store, Duration.ofMillis(200), Duration.ofSeconds(5), Duration.ofSeconds(1));
  }

  public LocalRegistryClient(
      RegistryStore store, Duration retryDelay, Duration maxRetryDelay, Duration probeInterval) {
    this.store = store;
    this.retryDelay = retryDelay;
    this.maxRetryDelay = maxRetryDelay;
    this.nextDelay = retryDelay;
    this.events =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("registry-client").factory());
    // The first load runs synchronously so a client built while the store is up starts full.
    try {
      events.submit(this::connect).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException e) {
      LOG.warn("registry client start-up failed", e.getCause());
    }
    long probe = Math.max(50, probeInterval.toMillis());
    events.scheduleWithFixedDelay(this::probe, probe, probe, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    closed = true;
    events.execute(
        () -> {
          closeWatch();
          events.shutdown();
        });
  }

  // --- event thread ---------------------------------------------------------------------------

  /** (Re)opens the watch, loading a snapshot first when there is none yet. */
  private void connect() {
    if (closed) {
      return;
    }
    closeWatch();
    try {
      if (!loaded) {
        cache.replace(store.snapshot());
        loaded = true;
      }
      long gen = ++generation;
      watch = store.watch(cache.revision() + 1, new Watcher(gen));
      setConnected(true);
      nextDelay = retryDelay;
    } catch (RuntimeException e) {
      LOG.debug("registry store not reachable: {}", e.toString());
      setConnected(false);
      scheduleReconnect();
    }
  }

  private void resync() {
    loaded = false;
    connect();
  }

  private void probe() {
    if (closed) {
      return;
    }
    boolean up;
    try {
      up = store.health().up();
    } catch (RuntimeException e) {
      up = false;
    }
    if (!up && connected()) {
      setConnected(false);
    } else if (up && !connected()) {
      // the store is back: reopen the watch from our revision (duplicates are ignored)
      connect();
    }
  }

  private void scheduleReconnect() {
    if (closed) {
      return;
    }
    long delay = nextDelay.toMillis();
    nextDelay = doubled(nextDelay, maxRetryDelay);
    long gen = generation;
    events.schedule(
        () -> {
          if (!connected() && gen == generation) {
            connect();
          }
        },
        delay,
        TimeUnit.MILLISECONDS);
  }

  private void closeWatch() {
    if (watch != null) {
      try {
        watch.close();
      } catch (RuntimeException e) {
        LOG.debug("closing watch: {}", e.toString());
      }
      watch = null;
    }
  }

  /** Forwards store callbacks to the event thread, dropping those of superseded watches. */
  private final class Watcher implements StoreWatcher {
    private final long gen;

    Watcher(long gen) {
      this.gen = gen;
    }

    @Override
    public void onEvents(List<StoreEvent> batch) {
      submit(
          () -> {
            cache.apply(batch);
            if (!connected()) {
              setConnected(true);
            }
          });
    }

    @Override
    public void onCompacted(long compactRevision) {
      submit(LocalRegistryClient.this::resync);
    }

    @Override
    public void onError(Throwable error) {
      submit(
          () -> {
            LOG.debug("registry watch failed: {}", error.toString());
            setConnected(false);
            scheduleReconnect();
          });
    }

    private void submit(Runnable r) {
      if (closed) {
        return;
      }
      try {
        events.execute(
            () -> {
              if (gen == generation && !closed) {
                r.run();
              }
            });
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // closing
      }
    }
  }
}
