package io.sightline.registry.store;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.DeleteOption;
import io.sightline.testsupport.Infra;
import io.sightline.testsupport.Service;
import io.sightline.testsupport.UsesInfra;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;

/**
 * The store contract against a real etcd ({@code ETCD_ENDPOINTS}, default 127.0.0.1:2379). Each
 * test writes under its own prefix and removes it afterwards (the etcd is shared).
 */
@UsesInfra(Service.ETCD)
class EtcdRegistryStoreTest extends RegistryStoreContract {
  private String prefix;

  @Override
  protected RegistryStore newStore() {
    prefix = "/sightline-test/" + UUID.randomUUID();
    return new EtcdRegistryStore(Infra.endpoint(Service.ETCD), prefix, Duration.ofSeconds(5));
  }

  @AfterEach
  void removePrefix() throws Exception {
    try (Client c = Client.builder().endpoints(Infra.endpoint(Service.ETCD).split(",")).build()) {
      c.getKVClient()
          .delete(
              ByteSequence.from(prefix + "/", StandardCharsets.UTF_8),
              DeleteOption.builder().isPrefix(true).build())
          .get(5, TimeUnit.SECONDS);
    }
  }
}
