package io.sightline.gateway.catalog;

import java.util.List;
import java.util.Optional;

/**
 * The gateway's view of the served models: existence (404), {@code /v1/models}, and whether the
 * frontend decodes media for a model. Backed by the registry client.
 */
public interface ModelCatalog {

  /** One served model. */
  record ServedModel(String id, String backend, boolean mediaDecoder, long createdEpochSeconds) {}

  /** All models, sorted by id. */
  List<ServedModel> models();

  /** The model named or aliased {@code name}. */
  Optional<ServedModel> find(String name);

  /**
   * A worker of this fleet that can stand in for a failed choice on retry: its base URL and
   * dialect, by registry id.
   */
  Optional<WorkerEndpoint> worker(String workerId);

  /** Where a worker listens. */
  record WorkerEndpoint(String workerId, String baseUrl, String dialect) {}
}
