package io.sightline.registry.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.sightline.registry.service.ProcessorFamilyDetector;
import io.sightline.registry.service.RegistryService;
import io.sightline.registry.store.InMemoryRegistryStore;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.test.web.reactive.server.WebTestClient;

/** The optional admin token guards every admin route (bound to the router, no server). */
class AdminTokenTest {
  private final InMemoryRegistryStore store = new InMemoryRegistryStore();
  private final WebTestClient client =
      WebTestClient.bindToRouterFunction(
              RegistryRoutes.routes(
                  new RegistryHandler(
                      new RegistryService(store, new ProcessorFamilyDetector(), 10, 3600),
                      1 << 20,
                      Duration.ofSeconds(5)),
                  "s3cret-token"))
          .build();

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void requestsWithoutTheTokenGet401AndChangeNothing() {
    client
        .get()
        .uri("/v1/admin/snapshot")
        .exchange()
        .expectStatus()
        .isUnauthorized()
        .expectHeader()
        .valueEquals("WWW-Authenticate", "Bearer")
        .expectBody()
        .jsonPath("$.error.code")
        .isEqualTo("unauthorized");
    client
        .post()
        .uri("/v1/admin/models")
        .header("Authorization", "Bearer wrong")
        .header("Content-Type", "application/json")
        .bodyValue("{\"name\":\"m\",\"backend\":\"vllm\",\"routing_mode\":\"approximate\"}")
        .exchange()
        .expectStatus()
        .isUnauthorized();
    assertThat(store.snapshot().models()).isEmpty();
  }

  @Test
  void theTokenOpensTheApi() {
    client
        .post()
        .uri("/v1/admin/models")
        .header("Authorization", "Bearer s3cret-token")
        .header("Content-Type", "application/json")
        .bodyValue("{\"name\":\"m\",\"backend\":\"vllm\",\"routing_mode\":\"approximate\"}")
        .exchange()
        .expectStatus()
        .isCreated();
    client
        .get()
        .uri("/v1/admin/models/m")
        .header("Authorization", "bearer s3cret-token")
        .exchange()
        .expectStatus()
        .isOk();
  }
}
