package io.sightline.router.state;

import io.sightline.testsupport.Infra;
import io.sightline.testsupport.Service;
import io.sightline.testsupport.UsesInfra;
import java.time.Duration;
import java.util.UUID;

/** The state contract over real Redis; each test uses its own key prefix. */
@UsesInfra(Service.REDIS)
class RedisStateBackendTest extends StateBackendContract {
  @Override
  StateBackend newBackend() {
    return new RedisStateBackend(
        Infra.endpoint(Service.REDIS),
        "sightline-test:" + UUID.randomUUID(),
        Duration.ofSeconds(5),
        10_000,
        Duration.ofMinutes(5));
  }

  @Override
  boolean replaysHistory() {
    return true;
  }
}
