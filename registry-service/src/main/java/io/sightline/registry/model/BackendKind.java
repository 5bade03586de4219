package io.sightline.registry.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.stream.Collectors;

/** The inference engine family a model is served by; also a worker's request dialect. */
public enum BackendKind {
  VLLM("vllm"),
  TRTLLM("trtllm");

  private final String id;

  BackendKind(String id) {
    this.id = id;
  }

  /** The lower-case wire name ({@code vllm} / {@code trtllm}). */
  @JsonValue
  public String id() {
    return id;
  }

  /** Parses the wire name; the message lists the accepted values. */
  @JsonCreator
  public static BackendKind fromId(String id) {
    for (BackendKind k : values()) {
      if (k.id.equals(id)) {
        return k;
      }
    }
    throw new IllegalArgumentException(
        "unknown backend '" + id + "' (expected one of " + allowed() + ")");
  }

  static String allowed() {
    return Arrays.stream(values()).map(BackendKind::id).collect(Collectors.joining(", "));
  }
}
