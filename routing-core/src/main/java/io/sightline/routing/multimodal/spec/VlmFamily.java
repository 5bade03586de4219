package io.sightline.routing.multimodal.spec;

/** The vision-language model families whose image-token expansion Sightline reproduces. */
public enum VlmFamily {
  QWEN2_VL("qwen2_vl"),
  QWEN2_5_VL("qwen2_5_vl"),
  QWEN3_VL("qwen3_vl"),
  LLAVA("llava"),
  LLAVA_NEXT("llava_next"),
  PHI3_V("phi3_v"),
  LLAMA4("llama4"),
  KIMI_K25("kimi_k25"),
  KIMI_VL("kimi_vl"),
  PIXTRAL("pixtral"),
  MISTRAL3("mistral3"),
  GEMMA3("gemma3"),
  GEMMA4("gemma4"),
  INTERNVL("internvl");

  private final String id;

  VlmFamily(String id) {
    this.id = id;
  }

  /** Stable lower-case name (JSON output, logs, model cards). */
  public String id() {
    return id;
  }
}
