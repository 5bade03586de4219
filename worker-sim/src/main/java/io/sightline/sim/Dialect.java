package io.sightline.sim;

/** Which engine the simulated worker imitates. */
public enum Dialect {
  /** vLLM: OpenAI API, ZMQ KV events, Prometheus metrics, block size 16. */
  VLLM(16),
  /** TensorRT-LLM ({@code trtllm-serve}): strict schema, polled JSON events, block size 32. */
  TRTLLM(32);

  private final int defaultBlockSize;

  Dialect(int defaultBlockSize) {
    this.defaultBlockSize = defaultBlockSize;
  }

  public int defaultBlockSize() {
    return defaultBlockSize;
  }

  /** Parses {@code vllm} / {@code trtllm} (case-insensitive). */
  public static Dialect parse(String s) {
    return switch (s.toLowerCase(java.util.Locale.ROOT)) {
      case "vllm" -> VLLM;
      case "trtllm", "trt-llm", "tensorrt-llm" -> TRTLLM;
      default -> throw new IllegalArgumentException("unknown dialect '" + s + "' (vllm|trtllm)");
    };
  }

  public String wireName() {
    return this == VLLM ? "vllm" : "trtllm";
  }
}
