package io.sightline.router.state;

/** The state contract over the embedded in-memory hub. */
class InMemoryStateHubTest extends StateBackendContract {
  @Override
  StateBackend newBackend() {
    return new InMemoryStateHub();
  }

  @Override
  boolean replaysHistory() {
    return false;
  }
}
