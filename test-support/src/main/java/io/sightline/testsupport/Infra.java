package io.sightline.testsupport;

import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

/**
 * Resolves the endpoint of a real {@link Service} for an integration test.
 *
 * <p>Order: an explicit endpoint ({@code -DREDIS_URL=…} or the {@code REDIS_URL} environment
 * variable, as {@code .ci/run} exports them), else the service's default port on 127.0.0.1 when
 * something answers there, else a Testcontainers container started once per JVM where Docker
 * exists. Where neither is available the test is skipped, unless {@code -Dinfra.required=true} (set
 * by {@code .ci/run}) turns that into a failure so CI can never pass by skipping.
 */
public final class Infra {
  private static final Map<Service, String> RESOLVED = new EnumMap<>(Service.class);
  private static Boolean dockerAvailable;

  private Infra() {}

  /** True when missing services must fail tests instead of skipping them. */
  public static boolean required() {
    return Boolean.getBoolean("infra.required")
        || "true".equalsIgnoreCase(System.getenv("INFRA_REQUIRED"));
  }

  /** The endpoint for {@code service}, or empty when none can be had. */
  public static synchronized Optional<String> find(Service service) {
    String known = RESOLVED.get(service);
    if (known != null) {
      return Optional.of(known);
    }
    String explicit = System.getProperty(service.variable(), System.getenv(service.variable()));
    if (explicit != null && !explicit.isBlank()) {
      RESOLVED.put(service, explicit.trim());
      return Optional.of(explicit.trim());
    }
    Optional<String> local = service.localDefault();
    if (local.isPresent()) {
      RESOLVED.put(service, local.get());
      return local;
    }
    if (docker()) {
      GenericContainer<?> container = service.container();
      container.start();
      Runtime.getRuntime().addShutdownHook(new Thread(container::stop));
      String endpoint = service.endpointOf(container);
      RESOLVED.put(service, endpoint);
      return Optional.of(endpoint);
    }
    return Optional.empty();
  }

  /** The endpoint for {@code service}; throws when it cannot be had. */
  public static String endpoint(Service service) {
    return find(service)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "no "
                        + service
                        + " endpoint: set "
                        + service.variable()
                        + " (env or -D) or provide a Docker engine"));
  }

  private static boolean docker() {
    if (dockerAvailable == null) {
      try {
        dockerAvailable = DockerClientFactory.instance().isDockerAvailable();
      } catch (RuntimeException | LinkageError e) {
        dockerAvailable = false;
      }
    }
    return dockerAvailable;
  }
}
