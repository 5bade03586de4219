package io.sightline.router.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The Jackson 2 mapper for the routing API's wire form (records as JSON objects with their
 * component names). Shared by the router's HTTP endpoints and {@code HttpRoutingService} so both
 * sides agree; Spring Boot 4's own codecs use Jackson 3, which we keep out of the public API.
 * Unknown fields are ignored so newer clients can talk to older routers.
 */
public final class RouterJson {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .build();

  private RouterJson() {}

  /** The shared, thread-safe mapper. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }
}
