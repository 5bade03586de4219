package io.sightline.gateway.backend;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Turns the client's OpenAI body into what one backend dialect accepts (DESIGN.md, gateway step 5).
 * The body is otherwise forwarded as is. Implementations delegate to the worker adapters ({@code
 * io.sightline.adapter.vllm}, {@code io.sightline.adapter.trtllm}).
 */
public interface BackendShaper {
  /** {@code "vllm"} or {@code "trtllm"}: matches {@code WorkerRef.dialect()}. */
  String dialect();

  /**
   * The body to send.
   *
   * @param body a private copy of the client's body; implementations may modify and return it
   * @param chat chat-completions (true) or completions (false)
   * @param mmUuids the images' identifiers in {@code MmHashes.forwardable} form, in image order
   */
  ObjectNode shape(ObjectNode body, boolean chat, List<String> mmUuids);
}
