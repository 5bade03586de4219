package io.sightline.registry.store;

import io.sightline.testsupport.Infra;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * An etcd process owned by one test, so the test can kill and restart it (the shared etcd of {@code
 * .ci/run} must not be touched). Binary: {@code ETCD_BINARY} (env or -D), else {@code etcd} on the
 * PATH, else {@code /usr/bin/etcd}. Without one the test is skipped, or fails when {@code
 * infra.required} is set.
 */
final class PrivateEtcd implements AutoCloseable {
  private final String binary;
  private final Path dataDir;
  private final int clientPort;
  private final int peerPort;
  private Process process;

  PrivateEtcd(Path dataDir) throws IOException {
    this.binary = findBinary();
    this.dataDir = dataDir;
    this.clientPort = freePort();
    this.peerPort = freePort();
  }

  String endpoint() {
    return "http://127.0.0.1:" + clientPort;
  }

  void start() throws IOException, InterruptedException {
    Path log = dataDir.resolveSibling(dataDir.getFileName() + ".log");
    process =
        new ProcessBuilder(
                List.of(
                    binary,
                    "--name",
                    "sightline-test",
                    "--data-dir",
                    dataDir.toString(),
                    "--listen-client-urls",
                    endpoint(),
                    "--advertise-client-urls",
                    endpoint(),
                    "--listen-peer-urls",
                    "http://127.0.0.1:" + peerPort,
                    "--initial-advertise-peer-urls",
                    "http://127.0.0.1:" + peerPort,
                    "--initial-cluster",
                    "sightline-test=http://127.0.0.1:" + peerPort))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("etcd exited with " + process.exitValue() + "; see " + log);
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", clientPort), 200);
        return;
      } catch (IOException e) {
        Thread.sleep(50);
      }
    }
    throw new IOException("etcd did not open " + endpoint() + " in 20 s; see " + log);
  }

  /** SIGKILL: no graceful shutdown, like a crashed node. */
  void kill() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() throws InterruptedException {
    kill();
  }

  private static String findBinary() {
    String explicit = System.getProperty("ETCD_BINARY", System.getenv("ETCD_BINARY"));
    Optional<String> found = Optional.ofNullable(explicit).filter(s -> new File(s).canExecute());
    if (found.isEmpty()) {
      String path = System.getenv().getOrDefault("PATH", "");
      for (String dir : path.split(File.pathSeparator)) {
        File f = new File(dir, "etcd");
        if (f.canExecute()) {
          found = Optional.of(f.getPath());
          break;
        }
      }
    }
    if (found.isEmpty() && new File("/usr/bin/etcd").canExecute()) {
      found = Optional.of("/usr/bin/etcd");
    }
    if (found.isEmpty()) {
      String why = "no etcd binary (set ETCD_BINARY or install etcd-server)";
      if (Infra.required()) {
        throw new IllegalStateException(why + " while infra.required=true");
      }
      Assumptions.abort(why);
    }
    return found.get();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }

  static Path tempDir(String prefix) throws IOException {
    return Files.createTempDirectory(prefix);
  }
}
