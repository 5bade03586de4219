package io.sightline.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.sightline.sim.engine.SimEngine;
import io.sightline.sim.http.Json;
import io.sightline.sim.http.PrometheusText;
import io.sightline.sim.prompt.PreparedPrompt;
import io.sightline.sim.prompt.SimPromptStage;
import io.sightline.sim.prompt.SimRequestException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * HTTP surface of a simulated worker on the JDK's {@code HttpServer} (virtual-thread executor;
 * streams are written chunk by chunk and flushed per SSE event, never buffered).
 *
 * <ul>
 *   <li>OpenAI: {@code POST /v1/chat/completions}, {@code POST /v1/completions} (SSE with {@code
 *       data: [DONE]} or JSON, {@code usage.prompt_tokens_details.cached_tokens}), {@code GET
 *       /v1/models}, {@code GET /health}, {@code GET /version}.
 *   <li>vLLM: {@code GET /metrics} in Prometheus text with vLLM's metric names.
 *   <li>TRT-LLM: {@code GET /metrics} (JSON array of iteration stats), {@code POST
 *       /kv_cache_events} (drained on read), {@code GET /server_info}; unknown top-level request
 *       fields are rejected with 400 (pydantic {@code extra="forbid"}).
 *   <li>Simulator control: {@code GET /sim/cache}, {@code GET|POST|DELETE /sim/faults}, {@code POST
 *       /sim/restart}, {@code POST /sim/crash}, {@code POST /sim/clear-cache}, {@code GET
 *       /sim/info}.
 * </ul>
 *
 * Every failure becomes a JSON error response; nothing escapes to the server thread except the
 * deliberate connection abort of an injected crash.
 *
 * <p>Every response is framed exactly, fixed-length or chunked, and connections stay persistent
 * (KeepAliveFramingTest checks this on the wire). "Data received while in pool" from a JDK {@code
 * HttpClient} calling a zero-delay worker is not caused by stray bytes from this server. It is a
 * race in the JDK 25 client's HTTP/1.1 pool (JDK-8357639): a stale cleanup subscriber reads the
 * next response when the server answers within microseconds, and it happens against nginx serving a
 * static response just the same. See docs/worker-sim.md, "Keep-alive".
 */
final class SimHttpHandler implements HttpHandler {
  private static final Logger LOG = Logger.getLogger(SimHttpHandler.class.getName());
  private static final int MAX_BODY = 64 * 1024 * 1024;
  private static final int DEFAULT_MAX_TOKENS = 16;

  /** TRT-LLM's {@code ChatCompletionRequest} fields (openai_protocol.py, extra="forbid"). */
  private static final Set<String> TRT_CHAT_FIELDS =
      Set.of(
          "messages",
          "model",
          "frequency_penalty",
          "logit_bias",
          "logprobs",
          "top_logprobs",
          "max_tokens",
          "max_completion_tokens",
          "n",
          "presence_penalty",
          "response_format",
          "seed",
          "stop",
          "stream",
          "stream_options",
          "temperature",
          "top_p",
          "tools",
          "tool_choice",
          "user",
          "reasoning_effort",
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
          "lora_request",
          "echo",
          "add_generation_prompt",
          "add_special_tokens",
          "documents",
          "chat_template",
          "chat_template_kwargs",
          "mm_processor_kwargs",
          "media_io_kwargs",
          "disaggregated_params",
          "cache_salt",
          "prompt_token_ids",
          "priority",
          "conversation_params",
          "return_perf_metrics",
          "return_generation_logits",
          "agent_hierarchy");

  /** TRT-LLM's {@code CompletionRequest} fields. */
  private static final Set<String> TRT_COMPLETION_FIELDS =
      Set.of(
          "model",
          "prompt",
          "best_of",
          "echo",
          "frequency_penalty",
          "logit_bias",
          "logprobs",
          "max_tokens",
          "n",
          "presence_penalty",
          "seed",
          "stop",
          "stream",
          "stream_options",
          "suffix",
          "temperature",
          "top_p",
          "user",
          "lora_request",
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
          "return_context_logits",
          "detokenize",
          "add_special_tokens",
          "response_format",
          "disaggregated_params",
          "prompt_ignore_length",
          "priority",
          "cache_salt",
          "return_perf_metrics",
          "agent_hierarchy");

  private final SimulatedWorker worker;

  SimHttpHandler(SimulatedWorker worker) {
    this.worker = worker;
  }

  @Override
  public void handle(HttpExchange ex) throws IOException {
    try {
      route(ex);
    } catch (AbortConnection abort) {
      // Not closing the exchange: the server drops the connection without the final chunk, so the
      // client sees a truncated response, as with a crashed engine.
      throw abort;
    } catch (IOException e) {
      LOG.log(Level.FINE, "client I/O failed", e);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "unexpected error", e);
      try {
        sendJson(ex, 500, Json.error(500, "InternalServerError", "internal error", null));
      } catch (IOException | RuntimeException ignored) {
        // The response was already started; nothing more to say.
      }
    }
    ex.close();
  }

  /** Thrown to drop the connection mid-response (injected crash, worker restarted). */
  static final class AbortConnection extends RuntimeException {
    AbortConnection(String message) {
      super(message, null, false, false);
    }
  }

  private void route(HttpExchange ex) throws IOException {
    String method = ex.getRequestMethod();
    String path = ex.getRequestURI().getPath();
    switch (path) {
      case "/health" -> {
        requireMethod(ex, method, "GET");
        sendEmpty(ex, worker.isReady() ? 200 : 503);
      }
      case "/version" -> sendJson(ex, 200, Json.MAPPER.createObjectNode().put("version", "sim"));
      case "/v1/models" -> models(ex);
      case "/v1/chat/completions" -> generate(ex, method, true);
      case "/v1/completions" -> generate(ex, method, false);
      case "/metrics" -> metrics(ex);
      case "/kv_cache_events" -> kvCacheEvents(ex, method);
      case "/server_info" -> serverInfo(ex);
      case "/sim/cache" -> sendJson(ex, 200, worker.cacheJson());
      case "/sim/info" -> sendJson(ex, 200, info());
      case "/sim/faults" -> faults(ex, method);
      case "/sim/restart" -> {
        requireMethod(ex, method, "POST");
        worker.restart();
        sendJson(ex, 200, info());
      }
      case "/sim/crash" -> {
        requireMethod(ex, method, "POST");
        sendEmpty(ex, 202);
        Thread.ofVirtual().start(worker::crash);
      }
      case "/sim/clear-cache" -> {
        requireMethod(ex, method, "POST");
        worker.clearCache();
        sendJson(ex, 200, Json.MAPPER.createObjectNode().put("cleared", true));
      }
      default -> sendJson(ex, 404, Json.error(404, "NotFoundError", "Not Found: " + path, null));
    }
  }

  private static boolean requireMethod(HttpExchange ex, String method, String expected)
      throws IOException {
    if (!expected.equals(method)) {
      sendJson(
          ex, 405, Json.error(405, "MethodNotAllowed", "Method " + method + " not allowed", null));
      throw new MethodRejected();
    }
    return true;
  }

  private static final class MethodRejected extends IOException {
    MethodRejected() {
      super("method not allowed", null);
    }
  }

  private ObjectNode info() {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("worker_id", worker.workerId());
    o.put("dialect", worker.dialect().wireName());
    o.put("model", worker.modelName());
    o.put("base_url", worker.baseUrl());
    o.put("block_size", worker.cache().blockSize());
    o.put("num_blocks", worker.cache().numBlocks());
    o.put("max_num_seqs", worker.engine().maxNumSeqs());
    o.put("exact_tokenizer", worker.promptStage().exact());
    if (worker.eventEndpoint() != null) {
      o.put("kv_events_endpoint", worker.eventEndpoint());
    }
    if (worker.replayEndpoint() != null) {
      o.put("kv_events_replay_endpoint", worker.replayEndpoint());
    }
    o.put("ready", worker.isReady());
    return o;
  }

  private void models(HttpExchange ex) throws IOException {
    ObjectNode root = Json.MAPPER.createObjectNode().put("object", "list");
    ArrayNode data = root.putArray("data");
    long created = System.currentTimeMillis() / 1000;
    String owner = worker.dialect() == Dialect.VLLM ? "vllm" : "tensorrt_llm";
    ObjectNode base = data.addObject();
    base.put("id", worker.modelName()).put("object", "model").put("created", created);
    base.put("owned_by", owner).put("root", worker.modelName()).putNull("parent");
    base.put("max_model_len", worker.engine().maxModelLen());
    for (String lora : worker.options().loraNames()) {
      ObjectNode m = data.addObject();
      m.put("id", lora).put("object", "model").put("created", created).put("owned_by", owner);
      m.put("root", lora).put("parent", worker.modelName());
    }
    sendJson(ex, 200, root);
  }

  private void faults(HttpExchange ex, String method) throws IOException {
    switch (method) {
      case "GET" -> sendJson(ex, 200, worker.faults().toJson());
      case "DELETE" -> {
        worker.faults().clear();
        sendJson(ex, 200, worker.faults().toJson());
      }
      case "POST", "PUT" -> {
        JsonNode body;
        try {
          body = Json.MAPPER.readTree(readBody(ex));
          worker.faults().apply(body);
        } catch (JsonProcessingException | IllegalArgumentException e) {
          sendJson(ex, 400, Json.error(400, "BadRequestError", e.getMessage(), null));
          return;
        }
        sendJson(ex, 200, worker.faults().toJson());
      }
      default -> requireMethod(ex, method, "POST");
    }
  }

  private void kvCacheEvents(HttpExchange ex, String method) throws IOException {
    if (worker.trtEvents() == null) {
      sendJson(ex, 404, Json.error(404, "NotFoundError", "Not Found: /kv_cache_events", null));
      return;
    }
    requireMethod(ex, method, "POST");
    sendJson(ex, 200, worker.trtEvents().drain());
  }

  private void serverInfo(HttpExchange ex) throws IOException {
    if (worker.dialect() != Dialect.TRTLLM) {
      sendJson(ex, 404, Json.error(404, "NotFoundError", "Not Found: /server_info", null));
      return;
    }
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("kv_cache_hash_algo", "v1_block_key");
    o.put("tokens_per_block", worker.cache().blockSize());
    o.put("max_batch_size", worker.engine().maxNumSeqs());
    o.putNull("disaggregated_params");
    sendJson(ex, 200, o);
  }

  private void metrics(HttpExchange ex) throws IOException {
    SimEngine e = worker.engine();
    if (worker.dialect() == Dialect.TRTLLM) {
      int block = worker.cache().blockSize();
      ArrayNode arr = Json.MAPPER.createArrayNode();
      ObjectNode stat = arr.addObject();
      stat.put("iter", e.iterations());
      stat.put("iterLatencyMS", 0.0);
      stat.put("numActiveRequests", e.running());
      stat.put("numQueuedRequests", e.waiting());
      stat.put("numCompletedRequests", e.requestsFinished());
      stat.put("maxNumActiveRequests", e.maxNumSeqs());
      stat.put("gpuMemUsage", 0);
      stat.put("maxNumTokensRuntime", e.maxModelLen());
      stat.put("attentionDpRank", worker.options().dpRank());
      ObjectNode kv = stat.putObject("kvCacheStats");
      int used = worker.cache().usedBlocks();
      kv.put("maxNumBlocks", worker.cache().numBlocks());
      kv.put("freeNumBlocks", worker.cache().numBlocks() - used);
      kv.put("usedNumBlocks", used);
      kv.put("tokensPerBlock", block);
      long reused = e.prefixHits() / block;
      long missed = Math.max(0, (e.prefixQueries() - e.prefixHits()) / block);
      kv.put("reusedBlocks", reused);
      kv.put("missedBlocks", missed);
      kv.put("cacheHitRate", reused + missed == 0 ? 0.0 : (double) reused / (reused + missed));
      kv.put("allocTotalBlocks", reused + missed);
      kv.put("allocNewBlocks", missed);
      ObjectNode ifb = stat.putObject("inflightBatchingStats");
      ifb.put("numScheduledRequests", e.running());
      ifb.put("numContextRequests", 0);
      ifb.put("numGenRequests", e.running());
      ifb.put("numPausedRequests", 0);
      ifb.put("numCtxTokens", 0);
      sendJson(ex, 200, arr);
      return;
    }
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("engine", "0");
    labels.put("model_name", worker.modelName());
    PrometheusText t = new PrometheusText();
    t.family("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.")
        .sample("vllm:num_requests_running", labels, e.running());
    t.family("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.")
        .sample("vllm:num_requests_waiting", labels, e.waiting());
    t.family("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.")
        .sample("vllm:kv_cache_usage_perc", labels, worker.cache().usage());
    t.family(
            "vllm:prefix_cache_queries",
            "counter",
            "Prefix cache queries, in terms of number of queried tokens.")
        .sample("vllm:prefix_cache_queries_total", labels, e.prefixQueries());
    t.family(
            "vllm:prefix_cache_hits",
            "counter",
            "Prefix cache hits, in terms of number of cached tokens.")
        .sample("vllm:prefix_cache_hits_total", labels, e.prefixHits());
    t.family("vllm:prompt_tokens", "counter", "Number of prefill tokens processed.")
        .sample("vllm:prompt_tokens_total", labels, e.promptTokensTotal());
    t.family("vllm:generation_tokens", "counter", "Number of generation tokens processed.")
        .sample("vllm:generation_tokens_total", labels, e.generationTokensTotal());
    Map<String, String> finished = new LinkedHashMap<>(labels);
    finished.put("finished_reason", "length");
    t.family("vllm:request_success", "counter", "Count of successfully processed requests.")
        .sample("vllm:request_success_total", finished, e.requestsFinished());
    Map<String, String> cfg = new LinkedHashMap<>();
    cfg.put("block_size", Integer.toString(worker.cache().blockSize()));
    cfg.put("cache_dtype", "auto");
    cfg.put("enable_prefix_caching", "True");
    cfg.put("engine", "0");
    cfg.put("num_gpu_blocks", Integer.toString(worker.cache().numBlocks()));
    cfg.put("prefix_caching_hash_algo", "sha256_cbor");
    t.family("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
        .sample("vllm:cache_config_info", cfg, 1);
    send(
        ex,
        200,
        "text/plain; version=0.0.4; charset=utf-8",
        t.toString().getBytes(StandardCharsets.UTF_8));
  }

  // ---------------------------------------------------------------- generation

  private void generate(HttpExchange ex, String method, boolean chat) throws IOException {
    requireMethod(ex, method, "POST");
    if (!worker.isReady()) {
      sendJson(ex, 503, Json.error(503, "ServiceUnavailableError", "the engine is starting", null));
      return;
    }
    if (worker.faults().rollError()) {
      int status = worker.faults().errorStatus();
      sendJson(ex, status, Json.error(status, "InternalServerError", "injected failure", null));
      return;
    }
    JsonNode body;
    try {
      body = Json.MAPPER.readTree(readBody(ex));
    } catch (JsonProcessingException e) {
      sendJson(
          ex,
          400,
          Json.error(400, "BadRequestError", "JSON decode error: " + e.getOriginalMessage(), null));
      return;
    } catch (BodyTooLarge e) {
      sendJson(ex, 413, Json.error(413, "BadRequestError", "request body too large", null));
      return;
    }
    Request req;
    try {
      req = parse(body, chat);
    } catch (SimRequestException e) {
      sendJson(ex, e.status(), Json.error(e.status(), e.type(), e.getMessage(), e.param()));
      return;
    }
    String id = (chat ? "chatcmpl-" : "cmpl-") + UUID.randomUUID().toString().replace("-", "");
    long created = System.currentTimeMillis() / 1000;
    if (req.stream()) {
      stream(ex, req, chat, id, created);
    } else {
      unary(ex, req, chat, id, created);
    }
  }

  private record Request(
      PreparedPrompt prompt,
      String model,
      int maxTokens,
      Long seed,
      boolean stream,
      boolean includeUsage) {}

  private Request parse(JsonNode body, boolean chat) throws SimRequestException {
    if (body == null || !body.isObject()) {
      throw SimRequestException.badRequest("the request body must be a JSON object");
    }
    if (worker.dialect() == Dialect.TRTLLM) {
      Set<String> allowed = chat ? TRT_CHAT_FIELDS : TRT_COMPLETION_FIELDS;
      var names = body.fieldNames();
      while (names.hasNext()) {
        String f = names.next();
        if (!allowed.contains(f)) {
          throw SimRequestException.badRequest(
              "1 validation error for "
                  + (chat ? "ChatCompletionRequest" : "CompletionRequest")
                  + "\n"
                  + f
                  + "\n  Extra inputs are not permitted [type=extra_forbidden]",
              f);
        }
      }
    }
    String model = body.path("model").isTextual() ? body.get("model").asText() : null;
    String loraName = null;
    if (model != null && !model.equals(worker.modelName())) {
      if (worker.options().loraNames().contains(model)) {
        loraName = model;
      } else if (worker.dialect() == Dialect.VLLM) {
        throw new SimRequestException(
            404, "NotFoundError", "The model `" + model + "` does not exist.", "model");
      }
    }
    Long loraId = null;
    JsonNode loraRequest = body.get("lora_request");
    if (worker.dialect() == Dialect.TRTLLM && loraRequest != null && loraRequest.isObject()) {
      loraName = loraRequest.path("lora_name").asText(null);
      if (loraRequest.path("lora_int_id").canConvertToLong()) {
        loraId = loraRequest.get("lora_int_id").asLong();
      }
    }
    int maxTokens = DEFAULT_MAX_TOKENS;
    for (String f : new String[] {"max_completion_tokens", "max_tokens"}) {
      JsonNode n = body.get(f);
      if (n != null && !n.isNull()) {
        if (!n.isIntegralNumber() || !n.canConvertToInt() || n.intValue() < 1) {
          throw SimRequestException.badRequest(f + " must be at least 1, got " + n, f);
        }
        maxTokens = n.intValue();
        break;
      }
    }
    JsonNode nNode = body.get("n");
    if (nNode != null && !nNode.isNull() && nNode.asInt(1) != 1) {
      throw SimRequestException.badRequest("only n=1 is supported by the simulator", "n");
    }
    Long seed = null;
    JsonNode seedNode = body.get("seed");
    if (seedNode != null && !seedNode.isNull()) {
      if (!seedNode.canConvertToLong() || !seedNode.isIntegralNumber()) {
        throw SimRequestException.badRequest("seed must be an integer", "seed");
      }
      seed = seedNode.asLong();
    }
    JsonNode streamNode = body.get("stream");
    if (streamNode != null && !streamNode.isNull() && !streamNode.isBoolean()) {
      throw SimRequestException.badRequest("stream must be a boolean", "stream");
    }
    boolean stream = streamNode != null && streamNode.asBoolean(false);
    boolean includeUsage = body.path("stream_options").path("include_usage").asBoolean(false);
    String salt = body.path("cache_salt").isTextual() ? body.get("cache_salt").asText() : null;
    if (salt != null && salt.isEmpty()) {
      throw SimRequestException.badRequest("cache_salt must be a non-empty string", "cache_salt");
    }
    SimPromptStage stage = worker.promptStage();
    SimPromptStage.ExpandedPrompt expanded =
        chat ? stage.prepareChat(body) : stage.prepareCompletion(body);
    PreparedPrompt prompt =
        new PreparedPrompt(expanded.tokens(), expanded.items(), loraName, loraId, salt);
    return new Request(
        prompt, model != null ? model : worker.modelName(), maxTokens, seed, stream, includeUsage);
  }

  private void unary(HttpExchange ex, Request req, boolean chat, String id, long created)
      throws IOException {
    SimEngine.Result result;
    try {
      result =
          worker
              .engine()
              .run(
                  req.prompt(),
                  req.maxTokens(),
                  req.seed(),
                  new SimEngine.TokenSink() {
                    @Override
                    public void onStart(int cachedTokens) {}

                    @Override
                    public void onToken(int index, String text) {}
                  });
    } catch (SimRequestException e) {
      sendJson(ex, e.status(), Json.error(e.status(), e.type(), e.getMessage(), e.param()));
      return;
    } catch (SimEngine.CrashException e) {
      worker.crash();
      throw new AbortConnection("crashed");
    } catch (SimEngine.AbortedException e) {
      throw new AbortConnection("aborted");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AbortConnection("interrupted");
    }
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("id", id);
    root.put("object", chat ? "chat.completion" : "text_completion");
    root.put("created", created);
    root.put("model", req.model());
    ObjectNode choice = root.putArray("choices").addObject();
    choice.put("index", 0);
    if (chat) {
      ObjectNode msg = choice.putObject("message");
      msg.put("role", "assistant").put("content", result.text());
      msg.putArray("tool_calls");
    } else {
      choice.put("text", result.text());
    }
    choice.putNull("logprobs");
    choice.put("finish_reason", "length");
    choice.putNull("stop_reason");
    root.set(
        "usage", usage(result.promptTokens(), result.completionTokens(), result.cachedTokens()));
    sendJson(ex, 200, root);
  }

  private void stream(HttpExchange ex, Request req, boolean chat, String id, long created)
      throws IOException {
    ex.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
    ex.getResponseHeaders().set("Cache-Control", "no-cache");
    OutputStream out = ex.getResponseBody();
    int[] cached = {0};
    boolean[] started = {false};
    SimEngine.TokenSink sink =
        new SimEngine.TokenSink() {
          @Override
          public void onStart(int cachedTokens) throws IOException {
            cached[0] = cachedTokens;
            ex.sendResponseHeaders(200, 0);
            started[0] = true;
            if (chat) {
              ObjectNode c = chunk(id, created, req.model(), chat);
              ObjectNode choice = c.withArray("choices").addObject();
              choice.put("index", 0);
              choice.putObject("delta").put("role", "assistant").put("content", "");
              choice.putNull("logprobs");
              choice.putNull("finish_reason");
              event(out, c);
            }
          }

          @Override
          public void onToken(int index, String text) throws IOException {
            ObjectNode c = chunk(id, created, req.model(), chat);
            ObjectNode choice = c.withArray("choices").addObject();
            choice.put("index", 0);
            if (chat) {
              choice.putObject("delta").put("content", text);
            } else {
              choice.put("text", text);
            }
            choice.putNull("logprobs");
            if (index == req.maxTokens() - 1) {
              choice.put("finish_reason", "length");
              choice.putNull("stop_reason");
            } else {
              choice.putNull("finish_reason");
            }
            event(out, c);
          }
        };
    SimEngine.Result result;
    try {
      result = worker.engine().run(req.prompt(), req.maxTokens(), req.seed(), sink);
    } catch (SimRequestException e) {
      if (!started[0]) {
        sendJson(ex, e.status(), Json.error(e.status(), e.type(), e.getMessage(), e.param()));
        return;
      }
      throw new AbortConnection(e.getMessage());
    } catch (SimEngine.CrashException e) {
      if (!started[0]) {
        ex.sendResponseHeaders(200, 0);
      }
      out.flush();
      worker.crash();
      throw new AbortConnection("crashed");
    } catch (SimEngine.AbortedException e) {
      throw new AbortConnection("aborted");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AbortConnection("interrupted");
    }
    if (req.includeUsage()) {
      ObjectNode c = chunk(id, created, req.model(), chat);
      c.putArray("choices");
      c.set("usage", usage(result.promptTokens(), result.completionTokens(), cached[0]));
      event(out, c);
    }
    out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private static ObjectNode chunk(String id, long created, String model, boolean chat) {
    ObjectNode c = Json.MAPPER.createObjectNode();
    c.put("id", id);
    c.put("object", chat ? "chat.completion.chunk" : "text_completion");
    c.put("created", created);
    c.put("model", model);
    return c;
  }

  private static void event(OutputStream out, ObjectNode chunk) throws IOException {
    out.write(
        ("data: " + Json.MAPPER.writeValueAsString(chunk) + "\n\n")
            .getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private static ObjectNode usage(int prompt, int completion, int cached) {
    ObjectNode u = Json.MAPPER.createObjectNode();
    u.put("prompt_tokens", prompt);
    u.put("total_tokens", prompt + completion);
    u.put("completion_tokens", completion);
    u.putObject("prompt_tokens_details").put("cached_tokens", cached);
    return u;
  }

  // ---------------------------------------------------------------- I/O helpers

  private static final class BodyTooLarge extends IOException {
    BodyTooLarge() {
      super("body too large", null);
    }
  }

  private static byte[] readBody(HttpExchange ex) throws IOException {
    try (InputStream in = ex.getRequestBody()) {
      byte[] data = in.readNBytes(MAX_BODY + 1);
      if (data.length > MAX_BODY) {
        throw new BodyTooLarge();
      }
      return data;
    }
  }

  private static void sendJson(HttpExchange ex, int status, JsonNode body) throws IOException {
    send(ex, status, "application/json", Json.MAPPER.writeValueAsBytes(body));
  }

  /**
   * A complete fixed-length response. A HEAD request gets the same status and headers, including
   * the Content-Length the body would have, and no body: the JDK server frames a HEAD answer as
   * bodiless whatever length it is given (it warns when given one, and closes the exchange at
   * once), so the length is set by hand and nothing is written — writing the body would hit the
   * closed exchange.
   */
  private static void send(HttpExchange ex, int status, String contentType, byte[] bytes)
      throws IOException {
    ex.getResponseHeaders().set("Content-Type", contentType);
    if ("HEAD".equals(ex.getRequestMethod())) {
      ex.getResponseHeaders().set("Content-Length", Integer.toString(bytes.length));
      ex.sendResponseHeaders(status, -1);
      return;
    }
    ex.sendResponseHeaders(status, bytes.length);
    ex.getResponseBody().write(bytes);
  }

  private static void sendEmpty(HttpExchange ex, int status) throws IOException {
    ex.sendResponseHeaders(status, -1);
  }
}
