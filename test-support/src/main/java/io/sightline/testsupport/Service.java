package io.sightline.testsupport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Optional;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The real servers Sightline's integration tests talk to. Each is found, in order, from a system
 * property or environment variable named {@link #variable()}, else from a Testcontainers container
 * when a Docker engine is available.
 */
public enum Service {
  /** Redis, as a {@code redis://host:port} URL. */
  REDIS("REDIS_URL", "redis://127.0.0.1:6379", 6379) {
    @Override
    GenericContainer<?> container() {
      return new GenericContainer<>(DockerImageName.parse("redis:7.2-alpine"))
          .withExposedPorts(6379);
    }

    @Override
    String endpointOf(GenericContainer<?> c) {
      return "redis://" + c.getHost() + ":" + c.getMappedPort(6379);
    }
  },
  /** NATS with JetStream, as a {@code nats://host:port} URL. */
  NATS("NATS_URL", "nats://127.0.0.1:4222", 4222) {
    @Override
    GenericContainer<?> container() {
      return new GenericContainer<>(DockerImageName.parse("nats:2.10-alpine"))
          .withCommand("-js")
          .withExposedPorts(4222);
    }

    @Override
    String endpointOf(GenericContainer<?> c) {
      return "nats://" + c.getHost() + ":" + c.getMappedPort(4222);
    }
  },
  /** etcd v3, as a comma-separated list of {@code http://host:port} endpoints. */
  ETCD("ETCD_ENDPOINTS", "http://127.0.0.1:2379", 2379) {
    @Override
    GenericContainer<?> container() {
      return new GenericContainer<>(DockerImageName.parse("quay.io/coreos/etcd:v3.5.17"))
          .withCommand(
              "etcd",
              "--listen-client-urls=http://0.0.0.0:2379",
              "--advertise-client-urls=http://127.0.0.1:2379")
          .withExposedPorts(2379);
    }

    @Override
    String endpointOf(GenericContainer<?> c) {
      return "http://" + c.getHost() + ":" + c.getMappedPort(2379);
    }
  };

  private final String variable;
  private final String defaultEndpoint;
  private final int defaultPort;

  Service(String variable, String defaultEndpoint, int defaultPort) {
    this.variable = variable;
    this.defaultEndpoint = defaultEndpoint;
    this.defaultPort = defaultPort;
  }

  /** The default local endpoint, when something accepts connections on its port. */
  Optional<String> localDefault() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", defaultPort), 300);
      return Optional.of(defaultEndpoint);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The system property / environment variable that names this service's endpoint. */
  public String variable() {
    return variable;
  }

  abstract GenericContainer<?> container();

  abstract String endpointOf(GenericContainer<?> container);
}
