package io.sightline.router.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.Client;
import io.sightline.testsupport.Infra;
import io.sightline.testsupport.Service;
import io.sightline.testsupport.UsesInfra;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Lease-based bridge ownership against a real etcd. */
@UsesInfra(Service.ETCD)
@Timeout(60)
class EtcdBridgeOwnershipTest {

  static Client client() {
    return Client.builder().endpoints(Infra.endpoint(Service.ETCD).split(",")).build();
  }

  @Test
  void eachWorkerHasExactlyOneOwnerAndAClosedOwnerHandsOverAtOnce() {
    String prefix = "/sightline-test/" + UUID.randomUUID() + "/bridge/";
    List<String> workers = List.of("w1", "w2", "w3", "w.4");
    EtcdBridgeOwnership a =
        new EtcdBridgeOwnership(client(), true, prefix, "a", Duration.ofSeconds(5));
    EtcdBridgeOwnership b =
        new EtcdBridgeOwnership(client(), true, prefix, "b", Duration.ofSeconds(5));
    try {
      Set<String> ownedA = a.claim(workers);
      Set<String> ownedB = b.claim(workers);
      assertThat(ownedA).containsExactlyInAnyOrderElementsOf(workers); // first claimer wins all
      assertThat(ownedB).isEmpty();
      assertThat(a.claim(workers)).isEqualTo(ownedA); // stable
      a.close();
      assertThat(b.claim(workers)).containsExactlyInAnyOrderElementsOf(workers);
    } finally {
      a.close();
      b.close();
    }
  }

  @Test
  void aCrashedOwnersLeaseExpiresAndAnotherReplicaTakesOver() throws Exception {
    String prefix = "/sightline-test/" + UUID.randomUUID() + "/bridge/";
    List<String> workers = List.of("w1");
    Client crashing = client();
    EtcdBridgeOwnership a =
        new EtcdBridgeOwnership(crashing, false, prefix, "a", Duration.ofSeconds(2));
    EtcdBridgeOwnership b =
        new EtcdBridgeOwnership(client(), true, prefix, "b", Duration.ofSeconds(2));
    try {
      assertThat(a.claim(workers)).containsExactly("w1");
      assertThat(b.claim(workers)).isEmpty();
      crashing.close(); // no revoke, no keep-alive: like a killed process
      long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      Set<String> taken = new HashSet<>();
      while (taken.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(250);
        taken = b.claim(workers);
      }
      assertThat(taken).containsExactly("w1");
    } finally {
      b.close();
    }
  }

  @Test
  void workersThatLeaveTheRegistryAreReleased() {
    String prefix = "/sightline-test/" + UUID.randomUUID() + "/bridge/";
    EtcdBridgeOwnership a =
        new EtcdBridgeOwnership(client(), true, prefix, "a", Duration.ofSeconds(5));
    EtcdBridgeOwnership b =
        new EtcdBridgeOwnership(client(), true, prefix, "b", Duration.ofSeconds(5));
    try {
      assertThat(a.claim(List.of("w1", "w2"))).hasSize(2);
      assertThat(a.claim(List.of("w2"))).containsExactly("w2");
      assertThat(b.claim(List.of("w1", "w2"))).containsExactly("w1");
    } finally {
      a.close();
      b.close();
    }
  }
}
