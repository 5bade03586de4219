package io.sightline.registry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sightline.registry.RegistryApplication;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.web.Http;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Stops the registry service under a {@link RemoteRegistryClient} and starts it again on the same
 * port and persistence file: the client serves its cache meanwhile and converges afterwards by
 * resuming from its revision (the file keeps the revision monotonic across restarts).
 */
class RegistryRestartTest {
  @TempDir Path dir;

  static ConfigurableApplicationContext startRegistry(int port, Path file) {
    return new SpringApplicationBuilder(RegistryApplication.class)
        .properties(
            "server.port=" + port,
            "sightline.registry.memory.file=" + file,
            "sightline.registry.sse-heartbeat=500ms",
            "spring.main.banner-mode=off",
            "management.endpoints.web.exposure.include=health")
        .run();
  }

  static String card(String name) {
    return "{\"name\":\"" + name + "\",\"backend\":\"vllm\",\"routing_mode\":\"approximate\"}";
  }

  @Test
  void remoteClientKeepsItsCacheAcrossARegistryRestart() throws Exception {
    int port = freePort();
    Path file = dir.resolve("registry.json");
    Http http = new Http("http://127.0.0.1:" + port);
    ConfigurableApplicationContext first = startRegistry(port, file);
    try (RemoteRegistryClient client =
        new RemoteRegistryClient(
            URI.create("http://127.0.0.1:" + port),
            Duration.ofMillis(100),
            Duration.ofMillis(500),
            Duration.ofSeconds(3))) {
      List<RegistryEvent> events = new CopyOnWriteArrayList<>();
      client.addListener(events::add);
      assertThat(http.post("/v1/admin/models", card("m1")).status()).isEqualTo(201);
      await().atMost(Duration.ofSeconds(5)).until(() -> client.model("m1").isPresent());

      first.close();
      await().atMost(Duration.ofSeconds(5)).until(() -> !client.connected());
      assertThat(client.models()).extracting(ModelCard::name).containsExactly("m1");

      ConfigurableApplicationContext second = startRegistry(port, file);
      try {
        assertThat(http.get("/v1/admin/models/m1").status()).as("persisted").isEqualTo(200);
        assertThat(http.post("/v1/admin/models", card("m2")).status()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(10)).until(() -> client.model("m2").isPresent());
        assertThat(client.connected()).isTrue();
        assertThat(client.models()).extracting(ModelCard::name).containsExactly("m1", "m2");
        assertThat(client.revision())
            .isEqualTo(http.get("/v1/admin/snapshot").json().get("revision").asLong());
        assertThat(events)
            .filteredOn(e -> e instanceof RegistryEvent.ModelPut)
            .extracting(e -> ((RegistryEvent.ModelPut) e).card().name())
            .containsExactly("m1", "m2");
      } finally {
        second.close();
      }
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
