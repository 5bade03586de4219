package io.sightline.registry;

import io.sightline.registry.model.BackendKind;
import io.sightline.registry.model.KvEventSource;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.WorkerInstance;
import java.util.List;

/** Small builders for test cards and workers. */
public final class Fixtures {
  private Fixtures() {}

  public static ModelCard card(String name) {
    return ModelCard.of(name, BackendKind.VLLM, 16);
  }

  public static ModelCard card(String name, String... aliases) {
    return card(name).withAliases(List.of(aliases));
  }

  public static WorkerInstance worker(String id, String model) {
    return new WorkerInstance(
            null,
            id,
            model,
            null,
            "http://10.0.0.1:8000",
            BackendKind.VLLM,
            2,
            16,
            KvEventSource.zmq("tcp://10.0.0.1:5557", "tcp://10.0.0.1:5558"),
            "http://10.0.0.1:8000/metrics",
            java.util.Map.of("zone", "a"),
            null,
            null)
        .withDefaults();
  }

  /** An API key record whose digest is the SHA-256 of {@code "sk-" + name}. */
  public static io.sightline.registry.model.ApiKey apiKey(String name, String... models) {
    try {
      byte[] d =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(("sk-" + name).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return new io.sightline.registry.model.ApiKey(
              null,
              name,
              java.util.HexFormat.of().formatHex(d),
              List.of(models),
              60L,
              0L,
              null,
              null)
          .withDefaults();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public static WorkerInstance leased(String id, String model, int ttlSeconds) {
    return worker(id, model).withLeaseTtlSeconds(ttlSeconds);
  }
}
