package io.sightline.adapter.trtllm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Shapes an OpenAI request for {@code trtllm-serve}, whose request models are {@code
 * extra="forbid"}: any unknown top-level field is an HTTP 400 ({@code
 * ../shared/reference/trtllm.md} §1 "Strict schema"). Top-level fields outside the known schema of
 * {@code ChatCompletionRequest} / {@code CompletionRequest} ({@code
 * tensorrt_llm/serve/openai_protocol.py}) are removed and reported — vLLM-only extras such as
 * {@code multi_modal_uuids}, {@code mm_hashes}, {@code kv_transfer_params}, {@code guided_*}
 * included. An allowlist (not a denylist of known vLLM extras) because any field we have not heard
 * of would fail the request. Message and content-part dicts allow extra keys in TRT-LLM and are
 * left alone; TRT-LLM has no HTTP field for an image identity, so mm_hashes are not forwarded.
 *
 * <p>Extra names can be allowed for newer TRT-LLM builds.
 */
public final class TrtRequestShaper {

  private static final Set<String> COMMON =
      Set.of(
          "model",
          "frequency_penalty",
          "logit_bias",
          "logprobs",
          "n",
          "presence_penalty",
          "response_format",
          "seed",
          "stop",
          "stream",
          "stream_options",
          "temperature",
          "top_p",
          "user",
          "best_of",
          "use_beam_search",
          "top_k",
          "top_p_min",
          "min_p",
          "repetition_penalty",
          "length_penalty",
          "early_stopping",
          "stop_token_ids",
          "include_stop_str_in_output",
          "ignore_eos",
          "min_tokens",
          "skip_special_tokens",
          "spaces_between_special_tokens",
          "truncate_prompt_tokens",
          "add_special_tokens",
          "disaggregated_params",
          "conversation_params",
          "priority",
          "lora_request",
          "thinking_token_budget",
          "prompt_ignore_length");

  private static final Set<String> CHAT_ONLY =
      Set.of(
          "messages",
          "prompt_token_ids",
          "top_logprobs",
          "max_completion_tokens",
          "max_tokens",
          "tools",
          "tool_choice",
          "parallel_tool_calls",
          "reasoning_effort",
          "thinking",
          "echo",
          "add_generation_prompt",
          "documents",
          "chat_template",
          "chat_template_kwargs",
          "media_io_kwargs",
          "cache_salt",
          "agent_hierarchy",
          "mm_processor_kwargs");

  private static final Set<String> COMPLETION_ONLY =
      Set.of(
          "prompt",
          "max_tokens",
          "echo",
          "suffix",
          "return_context_logits",
          "detokenize",
          "lora_request");

  /** The shaped body and the names of the fields removed. */
  public record Shaped(ObjectNode body, List<String> removed) {}

  private final Set<String> extraAllowed;

  public TrtRequestShaper() {
    this(Set.of());
  }

  public TrtRequestShaper(Set<String> extraAllowed) {
    this.extraAllowed = Set.copyOf(extraAllowed);
  }

  /** Whether {@code field} is accepted at the top level of a chat or completions request. */
  public boolean allowed(String field, boolean chat) {
    return COMMON.contains(field)
        || (chat ? CHAT_ONLY.contains(field) : COMPLETION_ONLY.contains(field))
        || extraAllowed.contains(field);
  }

  /** Returns a copy of {@code request} without fields TRT-LLM would reject. */
  public Shaped shape(ObjectNode request, boolean chat) {
    ObjectNode body = request.deepCopy();
    List<String> removed = new ArrayList<>();
    Iterator<Map.Entry<String, com.fasterxml.jackson.databind.JsonNode>> it = body.fields();
    while (it.hasNext()) {
      String name = it.next().getKey();
      if (!allowed(name, chat)) {
        removed.add(name);
        it.remove();
      }
    }
    return new Shaped(body, removed);
  }
}
