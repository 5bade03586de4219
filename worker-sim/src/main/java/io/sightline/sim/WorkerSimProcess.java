package io.sightline.sim;

import com.fasterxml.jackson.databind.JsonNode;
import io.sightline.sim.http.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Launches {@link WorkerSimMain} in a separate JVM with the current classpath, for tests of other
 * modules that want real worker processes:
 *
 * <pre>{@code
 * try (WorkerSimProcess sim = WorkerSimProcess.start(List.of("--workers", "3", "--speedup", "Infinity"))) {
 *   String url = sim.workers().get(0).get("base_url").asText();
 * }
 * }</pre>
 *
 * It waits for the {@code SIM-READY} line (the workers' endpoints as JSON); the child's other
 * output is forwarded to this process's stderr. {@link #close()} destroys the process.
 */
public final class WorkerSimProcess implements AutoCloseable {
  private final Process process;
  private final List<JsonNode> workers;

  private WorkerSimProcess(Process process, List<JsonNode> workers) {
    this.process = process;
    this.workers = workers;
  }

  /** Starts the simulator with command-line arguments and waits up to 60 s for readiness. */
  public static WorkerSimProcess start(List<String> args) throws IOException {
    return start(args, Duration.ofSeconds(60));
  }

  public static WorkerSimProcess start(List<String> args, Duration timeout) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-Xmx512m");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(WorkerSimMain.class.getName());
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    CompletableFuture<List<JsonNode>> ready = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .name("worker-sim-stdout")
        .start(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  if (!ready.isDone() && line.startsWith("SIM-READY ")) {
                    List<JsonNode> list = new ArrayList<>();
                    Json.MAPPER.readTree(line.substring(10)).forEach(list::add);
                    ready.complete(List.copyOf(list));
                  } else {
                    System.err.println("[worker-sim] " + line);
                  }
                }
                ready.completeExceptionally(new IOException("worker-sim exited before ready"));
              } catch (IOException e) {
                ready.completeExceptionally(e);
              }
            });
    try {
      return new WorkerSimProcess(p, ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting worker-sim", e);
    } catch (ExecutionException | TimeoutException e) {
      p.destroyForcibly();
      throw new IOException("worker-sim did not become ready: " + e.getMessage(), e);
    }
  }

  /** One JSON object per worker: id, dialect, model, base_url, block_size, kv_events, kv_replay. */
  public List<JsonNode> workers() {
    return workers;
  }

  public Process process() {
    return process;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
