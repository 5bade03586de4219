package io.sightline.gateway.backend;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.adapter.trtllm.TrtRequestShaper;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TensorRT-LLM: {@code trtllm-serve} rejects unknown top-level fields (400, {@code extra="forbid"};
 * ../shared/reference/trtllm.md §1), so fields outside its schema are stripped by the TRT-LLM
 * adapter's {@link TrtRequestShaper}. There is no HTTP field for an image identity, so mm_hashes
 * are not forwarded.
 */
public final class TrtllmBackendShaper implements BackendShaper {
  private static final Logger log = LoggerFactory.getLogger(TrtllmBackendShaper.class);
  private final TrtRequestShaper shaper = new TrtRequestShaper();

  @Override
  public String dialect() {
    return "trtllm";
  }

  @Override
  public ObjectNode shape(ObjectNode body, boolean chat, List<String> mmUuids) {
    TrtRequestShaper.Shaped shaped = shaper.shape(body, chat);
    if (!shaped.removed().isEmpty()) {
      log.debug("TRT-LLM request shaping removed {}", shaped.removed());
    }
    return shaped.body();
  }
}
