package io.sightline.registry.store;

import io.sightline.testsupport.Infra;
import io.sightline.testsupport.Service;
import io.sightline.testsupport.UsesInfra;
import java.time.Duration;
import java.util.UUID;

/** The store contract against a real etcd ({@code ETCD_ENDPOINTS}, default 127.0.0.1:2379). */
@UsesInfra(Service.ETCD)
class EtcdRegistryStoreTest extends RegistryStoreContract {
  @Override
  protected RegistryStore newStore() {
    return new EtcdRegistryStore(
        Infra.endpoint(Service.ETCD),
        "/sightline-test/" + UUID.randomUUID(),
        Duration.ofSeconds(5));
  }
}
