package io.sightline.router.ingest;

class InProcessKvEventBusTest extends KvEventBusContract {
  @Override
  KvEventBus newBus() {
    return new InProcessKvEventBus();
  }
}
