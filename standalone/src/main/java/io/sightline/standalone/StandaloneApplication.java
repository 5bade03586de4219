package io.sightline.standalone;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * Sightline's embedded default: the gateway, the router and the registry in one JVM, with the
 * in-memory registry store and the in-process KV event bus (no Redis, etcd or NATS), plus a fleet
 * of simulated vLLM workers serving a real multimodal model's tokenizer and chat template.
 *
 * <p>Each service contributes its wiring through its own auto-configuration; this application only
 * adds the simulated fleet and the default model ({@link StandaloneFleet}). Pointing the same
 * process at real workers, Redis, etcd and NATS is configuration only (see {@code
 * docs/standalone.md}).
 */
@SpringBootApplication
@EnableConfigurationProperties(StandaloneProperties.class)
public class StandaloneApplication {

  public static void main(String[] args) {
    // DJL's tokenizer loader otherwise contacts a cloud metadata address at start-up.
    System.setProperty("ai.djl.offline", "true");
    SpringApplication.run(StandaloneApplication.class, args);
  }
}
