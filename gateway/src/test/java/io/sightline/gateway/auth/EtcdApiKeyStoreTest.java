package io.sightline.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.sightline.gateway.error.OpenAiException;
import io.sightline.testsupport.Infra;
import io.sightline.testsupport.Service;
import io.sightline.testsupport.UsesInfra;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** Keys added and revoked in a real etcd take effect without a restart. */
@UsesInfra(Service.ETCD)
class EtcdApiKeyStoreTest {
  static final ApiKeyHasher HASHER = new ApiKeyHasher("p");

  static ByteSequence b(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 10_000;
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("condition not met within 10 s");
      }
      Thread.sleep(50);
    }
  }

  @Test
  void keysFollowEtcd() throws Exception {
    String prefix = "/test/apikeys/" + UUID.randomUUID() + "/";
    String[] endpoints = Infra.endpoint(Service.ETCD).split(",");
    try (Client writer = Client.builder().endpoints(endpoints).build()) {
      writer
          .getKVClient()
          .put(
              b(prefix + "alice"),
              b(
                  "{\"name\":\"alice\",\"hash\":\""
                      + HASHER.hex("sk-alice")
                      + "\",\"models\":[\"m1\"],\"requests_per_minute\":5}"))
          .get(5, TimeUnit.SECONDS);
      writer.getKVClient().put(b(prefix + "broken"), b("{not json")).get(5, TimeUnit.SECONDS);

      ApiKeyStore configured = List::of;
      try (EtcdApiKeyStore store =
          new EtcdApiKeyStore(Client.builder().endpoints(endpoints).build(), prefix, configured)) {
        ApiKeyAuthenticator auth = new ApiKeyAuthenticator(true, HASHER, store, 0, 0);
        ApiKeyPrincipal alice = auth.authenticate("Bearer sk-alice", null);
        assertThat(alice.name()).isEqualTo("alice");
        assertThat(alice.allowedModels()).containsExactly("m1");
        assertThat(alice.requestsPerMinute()).isEqualTo(5);
        assertThat(store.keys()).hasSize(1); // the broken record is ignored

        writer
            .getKVClient()
            .put(
                b(prefix + "bob"),
                b("{\"name\":\"bob\",\"hash\":\"" + HASHER.hex("sk-bob") + "\"}"))
            .get(5, TimeUnit.SECONDS);
        await(() -> store.keys().size() == 2);
        assertThat(auth.authenticate("Bearer sk-bob", null).name()).isEqualTo("bob");

        writer.getKVClient().delete(b(prefix + "alice")).get(5, TimeUnit.SECONDS);
        await(() -> store.keys().size() == 1);
        assertThatThrownBy(() -> auth.authenticate("Bearer sk-alice", null))
            .isInstanceOfSatisfying(
                OpenAiException.class, e -> assertThat(e.status()).isEqualTo(401));
      } finally {
        writer
            .getKVClient()
            .delete(b(prefix), io.etcd.jetcd.options.DeleteOption.builder().isPrefix(true).build())
            .get(5, TimeUnit.SECONDS);
      }
    }
  }
}
