package io.sightline.gateway.backend;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.adapter.vllm.VllmRequestShaper;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * vLLM: each image part gets its mm_hash (forwardable 64-hex form) as the part's {@code uuid}, so
 * vLLM's own multimodal cache keys and KV-event {@code extra_keys} carry our identifiers. Delegates
 * to the vLLM adapter's {@link VllmRequestShaper} (which documents the vLLM code it follows).
 * Completions bodies have no image parts and pass unchanged.
 */
public final class VllmBackendShaper implements BackendShaper {
  private static final Logger log = LoggerFactory.getLogger(VllmBackendShaper.class);
  private final VllmRequestShaper shaper = new VllmRequestShaper();

  @Override
  public String dialect() {
    return "vllm";
  }

  @Override
  public ObjectNode shape(ObjectNode body, boolean chat, List<String> mmUuids) {
    if (!chat || mmUuids.isEmpty()) {
      return body;
    }
    VllmRequestShaper.Shaped shaped = shaper.shape(body, mmUuids);
    shaped.warnings().forEach(w -> log.warn("vLLM request shaping: {}", w));
    return shaped.body();
  }
}
