package io.sightline.prompt.hf;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;

/**
 * The process-wide cache of loaded model directories: each directory (by real path) is loaded once,
 * even when many threads ask for it at the same time; a failed load is not cached, so a fixed
 * directory can be retried. Loading a tokenizer takes 0.5–1 s (a 7–11 MB JSON parsed by the Rust
 * library), so callers should load at registration time, not per request.
 */
public final class HfModels {

  private static final ConcurrentMap<Path, CompletableFuture<HfModel>> CACHE =
      new ConcurrentHashMap<>();

  private HfModels() {}

  /** The model in {@code directory}, loading it on first use. */
  public static HfModel load(Path directory) throws HfModelException {
    Path key;
    try {
      key = directory.toRealPath();
    } catch (IOException e) {
      throw new HfModelException("not a model directory: " + directory, e);
    }
    CompletableFuture<HfModel> created = new CompletableFuture<>();
    CompletableFuture<HfModel> existing = CACHE.putIfAbsent(key, created);
    if (existing == null) {
      try {
        created.complete(HfModel.load(key));
      } catch (HfModelException | RuntimeException e) {
        CACHE.remove(key, created);
        created.completeExceptionally(e);
      }
      existing = created;
    }
    try {
      return existing.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HfModelException("interrupted while loading " + directory, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof HfModelException h) {
        throw h;
      }
      throw new HfModelException("cannot load " + directory + ": " + cause, cause);
    }
  }

  /** Drops a cached model (e.g. after its files changed); the next load reads it again. */
  public static void evict(Path directory) {
    try {
      CACHE.remove(directory.toRealPath());
    } catch (IOException e) {
      CACHE.remove(directory.toAbsolutePath().normalize());
    }
  }
}
