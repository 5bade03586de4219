package io.sightline.router.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.sightline.testsupport.Infra;
import io.sightline.testsupport.Service;
import io.sightline.testsupport.UsesInfra;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The bus contract over a real NATS JetStream server; each test has its own stream. */
@UsesInfra(Service.NATS)
class NatsKvEventBusTest extends KvEventBusContract {
  private Connection connection;
  private NatsKvEventBus nats;

  @Override
  KvEventBus newBus() throws Exception {
    connection = Nats.connect(Infra.endpoint(Service.NATS));
    String id = UUID.randomUUID().toString().replace("-", "");
    nats =
        new NatsKvEventBus(
            connection,
            new NatsKvEventBus.Settings(
                "TEST_KV_" + id, "test-kv." + id, Duration.ofMinutes(5), -1, true));
    return nats;
  }

  @AfterEach
  void cleanUp() throws Exception {
    nats.deleteStream();
    connection.close();
  }

  @Test
  void workerIdsAreEscapedIntoOneSubjectToken() {
    assertThat(NatsKvEventBus.token("w.a>*")).isEqualTo("w_2ea_3e_2a");
    assertThat(NatsKvEventBus.token("pod-1_x é")).isEqualTo("pod-1_5fx_20_c3_a9");
    assertThat(nats.subject("a.b", 2)).endsWith(".a_2eb.2");
  }
}
