package io.sightline.registry;

import java.util.Map;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * The registry as its own service: the admin REST + SSE API over an in-memory (default) or etcd
 * store. All wiring lives in {@link io.sightline.registry.config.RegistryAutoConfiguration}, so
 * this class only sets service defaults (port 8081, health details) as <em>default</em> properties
 * that any {@code application.properties}, environment variable or argument overrides. They are not
 * in an {@code application.properties} resource because this jar is also a library on the gateway's
 * and standalone app's classpath.
 */
@SpringBootApplication
public class RegistryApplication {
  static final Map<String, Object> DEFAULTS =
      Map.of(
          "server.port", "8081",
          "spring.application.name", "sightline-registry",
          "management.endpoints.web.exposure.include", "health,info,prometheus,configprops",
          "management.endpoint.health.show-details", "always");

  public static void main(String[] args) {
    new SpringApplicationBuilder(RegistryApplication.class).properties(DEFAULTS).run(args);
  }
}
