package io.sightline.sim;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Several simulated workers in one JVM, on consecutive ports when a base port is given: worker
 * {@code i} gets HTTP {@code port + i} and, for vLLM, ZMQ {@code zmqPort + i} and replay {@code
 * replayPort + i} (0 keeps every port random).
 */
public final class SimFleet implements AutoCloseable {
  private final List<SimulatedWorker> workers;

  private SimFleet(List<SimulatedWorker> workers) {
    this.workers = List.copyOf(workers);
  }

  /** Starts {@code n} workers from one template; stops the started ones if any fails. */
  public static SimFleet start(SimOptions template, int n) throws IOException {
    if (n <= 0) {
      throw new IllegalArgumentException("n must be positive");
    }
    List<SimulatedWorker> started = new ArrayList<>(n);
    try {
      for (int i = 0; i < n; i++) {
        SimOptions o =
            template
                .withPort(offset(template.port(), i))
                .withZmqPorts(offset(template.zmqPort(), i), offset(template.replayPort(), i))
                .withSeed(template.seed() + i);
        if (template.workerId() != null) {
          o =
              o.withRegistry(
                  template.registryUrl(), template.workerId() + "-" + i, template.advertiseHost());
        }
        started.add(SimulatedWorker.start(o));
      }
    } catch (IOException | RuntimeException e) {
      started.forEach(SimulatedWorker::close);
      throw e;
    }
    return new SimFleet(started);
  }

  private static int offset(int base, int i) {
    return base > 0 ? base + i : base;
  }

  public List<SimulatedWorker> workers() {
    return workers;
  }

  public SimulatedWorker get(int i) {
    return workers.get(i);
  }

  public int size() {
    return workers.size();
  }

  @Override
  public void close() {
    workers.forEach(SimulatedWorker::close);
  }
}
