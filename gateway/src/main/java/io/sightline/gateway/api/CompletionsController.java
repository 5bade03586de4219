package io.sightline.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.sightline.gateway.auth.ApiKeyAuthenticator;
import io.sightline.gateway.auth.ApiKeyPrincipal;
import io.sightline.gateway.backend.BackendShaper;
import io.sightline.gateway.catalog.ModelCatalog;
import io.sightline.gateway.catalog.ModelCatalog.ServedModel;
import io.sightline.gateway.config.GatewayProperties;
import io.sightline.gateway.error.OpenAiErrorWebExceptionHandler;
import io.sightline.gateway.error.OpenAiErrors;
import io.sightline.gateway.error.OpenAiException;
import io.sightline.gateway.media.MediaResolver;
import io.sightline.gateway.proxy.SseFramer;
import io.sightline.gateway.proxy.UpstreamException;
import io.sightline.gateway.proxy.UpstreamException.Kind;
import io.sightline.gateway.proxy.WorkerClient;
import io.sightline.gateway.proxy.WorkerClient.Head;
import io.sightline.gateway.quota.QuotaLimiter;
import io.sightline.gateway.quota.RateLimitedException;
import io.sightline.router.api.Explanation;
import io.sightline.router.api.ReleaseRequest;
import io.sightline.router.api.ResolvedImage;
import io.sightline.router.api.RouteDecision;
import io.sightline.router.api.RouteRequest;
import io.sightline.router.api.RoutingException;
import io.sightline.router.api.RoutingService;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code POST /v1/chat/completions} and {@code POST /v1/completions}: the gateway's pipeline
 * (DESIGN.md "gateway"; issue 8 "Pipeline per request"):
 *
 * <ol>
 *   <li>API key (401) and the key's model allowlist (403); unknown model 404;
 *   <li>body under the size cap (413), parsed once (400);
 *   <li>per-key quotas (429 with {@code Retry-After});
 *   <li>images resolved to (mm_hash, width, height) by {@link MediaResolver} (400s);
 *   <li>{@link RoutingService#route} (in-process or remote);
 *   <li>the body shaped for the worker's dialect by its {@link BackendShaper} (vLLM: mm_hashes as
 *       multimodal uuids; TRT-LLM: strict-schema stripping);
 *   <li>proxied: one Resilience4j circuit breaker per worker; a failure before anything was sent to
 *       the client (connect error, timeout to first byte, 5xx, open breaker) is retried on another
 *       worker up to {@code maxAttempts}; SSE is passed on event by event, never buffered; a worker
 *       dying mid-stream ends the client's stream with an OpenAI error event and {@code [DONE]};
 *   <li>released to the router with the worker's {@code cached_tokens}; predicted (overlap blocks x
 *       block size) vs actual cached tokens are recorded as metrics.
 * </ol>
 *
 * Every routed answer carries {@code x-sightline-worker} and {@code x-sightline-overlap} ({@code
 * overlap/total} blocks). The controller writes the response itself ({@code Mono<Void>}), so the
 * worker's bytes go to the client as they arrive.
 */
@RestController
public class CompletionsController {
  private static final Logger log = LoggerFactory.getLogger(CompletionsController.class);
  public static final String WORKER_HEADER = "x-sightline-worker";
  public static final String OVERLAP_HEADER = "x-sightline-overlap";

  private final GatewayProperties props;
  private final ObjectMapper mapper;
  private final ApiKeyAuthenticator auth;
  private final QuotaLimiter quotas;
  private final ModelCatalog catalog;
  private final MediaResolver media;
  private final RoutingService router;
  private final Map<String, BackendShaper> shapers;
  private final WorkerClient workers;
  private final CircuitBreakerRegistry breakers;
  private final MeterRegistry meters;
  private final boolean remoteRouter;

  public CompletionsController(
      GatewayProperties props,
      ObjectMapper mapper,
      ApiKeyAuthenticator auth,
      QuotaLimiter quotas,
      ModelCatalog catalog,
      MediaResolver media,
      RoutingService router,
      List<BackendShaper> shapers,
      WorkerClient workers,
      CircuitBreakerRegistry breakers,
      MeterRegistry meters) {
    this.props = props;
    this.mapper = mapper;
    this.auth = auth;
    this.quotas = quotas;
    this.catalog = catalog;
    this.media = media;
    this.router = router;
    this.shapers =
        shapers.stream()
            .collect(
                java.util.stream.Collectors.toMap(BackendShaper::dialect, s -> s, (a, b) -> a));
    this.workers = workers;
    this.breakers = breakers;
    this.meters = meters;
    this.remoteRouter = router instanceof io.sightline.router.web.HttpRoutingService;
  }

  @PostMapping("/v1/chat/completions")
  public Mono<Void> chat(ServerWebExchange exchange) {
    return handle(exchange, true);
  }

  @PostMapping("/v1/completions")
  public Mono<Void> completions(ServerWebExchange exchange) {
    return handle(exchange, false);
  }

  /** Everything known about one request once it is admitted. */
  private record Call(
      ServerWebExchange exchange,
      ApiKeyPrincipal principal,
      ServedModel model,
      ObjectNode body,
      boolean chat,
      boolean stream,
      boolean injectedUsage,
      long estimatedTokens,
      RouteRequest routeRequest) {}

  /**
   * A worker to try. {@code routingId} is null for a fallback candidate the router did not book.
   */
  private record Target(
      String workerId,
      String baseUrl,
      String dialect,
      String routingId,
      int overlapBlocks,
      int totalBlocks,
      int blockSize,
      List<String> mmUuids) {}

  private Mono<Void> handle(ServerWebExchange exchange, boolean chat) {
    String endpoint = chat ? "chat" : "completions";
    return Mono.defer(
            () -> {
              HttpHeaders h = exchange.getRequest().getHeaders();
              ApiKeyPrincipal principal =
                  auth.authenticate(h.getFirst(HttpHeaders.AUTHORIZATION), h.getFirst("api-key"));
              return RequestBodies.read(exchange.getRequest(), props.getMaxBodySize().toBytes())
                  .map(bytes -> RequestBodies.parseObject(mapper, bytes))
                  .flatMap(body -> admit(exchange, principal, body, chat));
            })
        .flatMap(call -> proxy(call, 1, new HashSet<>(), null))
        .onErrorResume(
            e -> {
              OpenAiException error = OpenAiErrorWebExceptionHandler.translate(e);
              meters
                  .counter(
                      "sightline_gateway_requests_total",
                      "endpoint",
                      endpoint,
                      "status",
                      Integer.toString(error.status()))
                  .increment();
              ServerHttpResponse response = exchange.getResponse();
              if (response.isCommitted()) {
                return Mono.empty();
              }
              if (error instanceof RateLimitedException rl) {
                response
                    .getHeaders()
                    .set(HttpHeaders.RETRY_AFTER, Long.toString(rl.retryAfterSeconds()));
              }
              if (error.status() >= 500) {
                log.warn("{} failed with {}: {}", endpoint, error.status(), e.toString());
              }
              return OpenAiErrorWebExceptionHandler.write(response, error);
            });
  }

  private Mono<Call> admit(
      ServerWebExchange exchange, ApiKeyPrincipal principal, ObjectNode body, boolean chat) {
    JsonNode modelNode = body.get("model");
    if (modelNode == null || !modelNode.isTextual() || modelNode.asText().isBlank()) {
      throw OpenAiException.badRequest("missing_model", "model", "'model' is required.");
    }
    String modelName = modelNode.asText();
    if (chat) {
      JsonNode messages = body.get("messages");
      if (messages == null || !messages.isArray() || messages.isEmpty()) {
        throw OpenAiException.badRequest(
            "invalid_messages", "messages", "'messages' must be a non-empty array.");
      }
    } else if (body.get("prompt") == null || body.get("prompt").isNull()) {
      throw OpenAiException.badRequest("missing_prompt", "prompt", "'prompt' is required.");
    }
    auth.checkModel(principal, modelName);
    ServedModel model =
        catalog.find(modelName).orElseThrow(() -> OpenAiException.modelNotFound(modelName));
    boolean stream = body.path("stream").asBoolean(false);
    List<MediaResolver.ImagePart> parts =
        chat ? MediaResolver.imageParts(body) : List.<MediaResolver.ImagePart>of();
    long estimate = estimateTokens(body, parts.size());
    return quotas
        .acquire(principal, estimate)
        .flatMap(
            decision -> {
              if (!decision.allowed()) {
                return Mono.error(
                    new RateLimitedException(
                        "Rate limit reached for this API key ("
                            + decision.reason()
                            + "). Retry after "
                            + decision.retryAfterSeconds()
                            + " s.",
                        decision.retryAfterSeconds()));
              }
              return media.resolve(parts, model.mediaDecoder());
            })
        .map(
            (List<ResolvedImage> images) -> {
              boolean inject =
                  stream && !body.path("stream_options").path("include_usage").asBoolean(false);
              return new Call(
                  exchange,
                  principal,
                  model,
                  body,
                  chat,
                  stream,
                  inject,
                  estimate,
                  new RouteRequest(model.id(), body, images, chat));
            });
  }

  /** Prompt characters / 4 plus ~600 tokens per image plus the requested completion length. */
  static long estimateTokens(JsonNode body, int images) {
    long chars = 0;
    JsonNode prompt = body.get("prompt");
    if (prompt != null) {
      chars += prompt.toString().length();
    }
    for (JsonNode m : body.path("messages")) {
      JsonNode c = m.path("content");
      if (c.isTextual()) {
        chars += c.asText().length();
      } else {
        for (JsonNode part : c) {
          chars += part.path("text").asText("").length();
        }
      }
    }
    long completion =
        Math.max(body.path("max_completion_tokens").asLong(0), body.path("max_tokens").asLong(0));
    return chars / 4 + 600L * images + completion;
  }

  // ---- routing and failover ----

  private Mono<RouteDecision> route(RouteRequest request) {
    Mono<RouteDecision> decision = Mono.fromCallable(() -> router.route(request));
    // A remote router blocks on the network: keep it off the event loop. The in-process router
    // is short CPU work; a thread hop per call would cost more than it saves (it showed up as
    // event-loop wake-ups in the overhead benchmark's profile).
    return (remoteRouter ? decision.subscribeOn(Schedulers.boundedElastic()) : decision)
        .onErrorMap(RoutingException.class, CompletionsController::routingError);
  }

  static OpenAiException routingError(RoutingException e) {
    return switch (e.status()) {
      case 400 -> OpenAiException.badRequest(e.code(), null, e.getMessage());
      case 404 ->
          new OpenAiException(
              404, "invalid_request_error", "model_not_found", "model", e.getMessage());
      default -> OpenAiException.unavailable(e.getMessage());
    };
  }

  private static Target target(RouteDecision d) {
    Explanation ex = d.explanation();
    return new Target(
        d.worker().workerId(),
        d.worker().baseUrl(),
        d.worker().dialect(),
        d.routingId(),
        d.overlapBlocks(),
        d.totalBlocks(),
        ex == null ? 0 : ex.blockSize(),
        d.forwardMmHashes());
  }

  /** Route (first attempt) or re-route (retry), then try that worker. */
  private Mono<Void> proxy(Call call, int attempt, Set<String> tried, UpstreamException last) {
    return route(call.routeRequest())
        .flatMap(
            d -> {
              if (!tried.contains(d.worker().workerId())
                  && breakers.circuitBreaker(d.worker().workerId()).getState()
                      != CircuitBreaker.State.OPEN) {
                return Mono.just(target(d));
              }
              // The router chose a worker that just failed (or whose breaker is open): release its
              // booking and take the cheapest other candidate it considered.
              release(d.routingId(), null);
              return Mono.justOrEmpty(alternative(d, tried))
                  .switchIfEmpty(
                      Mono.error(
                          () ->
                              last != null
                                  ? upstreamError(last)
                                  : OpenAiException.unavailable(
                                      "No worker is available for this model (circuit breakers open).")));
            })
        .flatMap(t -> attempt(call, t, attempt, tried));
  }

  private Optional<Target> alternative(RouteDecision d, Set<String> tried) {
    if (d.explanation() == null) {
      return Optional.empty();
    }
    return d.explanation().candidates().stream()
        .filter(c -> c.filteredReason() == null)
        .filter(c -> !tried.contains(c.workerId()) && !c.workerId().equals(d.worker().workerId()))
        .filter(c -> breakers.circuitBreaker(c.workerId()).getState() != CircuitBreaker.State.OPEN)
        .sorted(Comparator.comparingDouble(Explanation.Candidate::cost))
        .flatMap(
            c ->
                catalog.worker(c.workerId()).stream()
                    .map(
                        w ->
                            new Target(
                                w.workerId(),
                                w.baseUrl(),
                                w.dialect(),
                                null,
                                c.overlapBlocks(),
                                c.totalBlocks(),
                                d.explanation().blockSize(),
                                d.forwardMmHashes())))
        .findFirst();
  }

  private Mono<Void> failover(
      Call call, Target failed, int attempt, Set<String> tried, UpstreamException e) {
    release(failed.routingId(), null);
    tried.add(failed.workerId());
    if (attempt >= props.getUpstream().getMaxAttempts()) {
      return Mono.error(upstreamError(e));
    }
    meters.counter("sightline_gateway_retries_total", "reason", e.kind().name()).increment();
    log.info(
        "worker {} failed before the first byte ({}); retrying elsewhere",
        failed.workerId(),
        e.getMessage());
    return proxy(call, attempt + 1, tried, e);
  }

  static OpenAiException upstreamError(UpstreamException e) {
    return switch (e.kind()) {
      case TIMEOUT -> OpenAiException.timeout("The worker did not answer in time.");
      case BREAKER_OPEN -> OpenAiException.unavailable("No worker is available for this model.");
      case STATUS ->
          e.status() == 503
              ? OpenAiException.unavailable("The worker is unavailable (HTTP 503).")
              : e.status() == 504
                  ? OpenAiException.timeout("The worker timed out (HTTP 504).")
                  : OpenAiException.badGateway("The worker failed (HTTP " + e.status() + ").");
      case CONNECT -> OpenAiException.badGateway("The worker could not be reached.");
    };
  }

  // ---- one attempt ----

  private Mono<Void> attempt(Call call, Target target, int attempt, Set<String> tried) {
    CircuitBreaker cb = breakers.circuitBreaker(target.workerId());
    if (!cb.tryAcquirePermission()) {
      return failover(
          call,
          target,
          attempt,
          tried,
          new UpstreamException(Kind.BREAKER_OPEN, 0, "circuit breaker open", null));
    }
    BackendShaper shaper = shapers.get(target.dialect());
    if (shaper == null) {
      cb.releasePermission();
      release(target.routingId(), null);
      return Mono.error(
          OpenAiException.badGateway("No adapter for worker dialect '" + target.dialect() + "'."));
    }
    ObjectNode upstreamBody = call.body().deepCopy();
    if (call.injectedUsage()) {
      upstreamBody.withObject("stream_options").put("include_usage", true);
    }
    upstreamBody = shaper.shape(upstreamBody, call.chat(), target.mmUuids());
    byte[] payload;
    try {
      payload = mapper.writeValueAsBytes(upstreamBody);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      cb.releasePermission();
      return Mono.error(e);
    }
    long started = System.nanoTime();
    String url = endpointUrl(target.baseUrl(), call.chat());
    AtomicBoolean settled = new AtomicBoolean();
    AtomicReference<Usage> usage = new AtomicReference<>();
    Runnable success =
        () -> {
          if (settled.compareAndSet(false, true)) {
            cb.onSuccess(System.nanoTime() - started, TimeUnit.NANOSECONDS);
          }
        };
    java.util.function.Consumer<Throwable> failure =
        t -> {
          if (settled.compareAndSet(false, true)) {
            cb.onError(System.nanoTime() - started, TimeUnit.NANOSECONDS, t);
          }
        };
    AtomicBoolean committed = new AtomicBoolean();
    return workers
        .post(url, payload, call.stream())
        .switchOnFirst(
            (first, all) -> {
              if (!first.hasValue()) {
                return all.then(); // error or empty: surfaces below, before the first byte
              }
              Head head = (Head) first.get();
              Flux<byte[]> body =
                  all.skip(1).cast(byte[].class).timeout(props.getUpstream().getIdleTimeout());
              if (head.status() >= 500) {
                // Worker-side failure: drain and retry elsewhere; the client has seen nothing.
                return body.onErrorResume(x -> Flux.empty())
                    .then(
                        Mono.error(
                            new UpstreamException(
                                Kind.STATUS,
                                head.status(),
                                "worker answered " + head.status(),
                                null)));
              }
              boolean sse =
                  call.stream()
                      && head.status() == 200
                      && String.valueOf(head.headers().get("content-type"))
                          .startsWith("text/event-stream");
              if (!sse) {
                return body.collect(
                        ByteArrayOutputStream::new, (out, b) -> out.write(b, 0, b.length))
                    .flatMap(
                        out -> {
                          byte[] bytes = out.toByteArray();
                          if (head.status() == 200) {
                            usage.set(parseUsage(bytes));
                          }
                          success.run();
                          committed.set(true);
                          ServerHttpResponse response = call.exchange().getResponse();
                          prepare(response, head, target);
                          response.getHeaders().setContentLength(bytes.length);
                          return response.writeWith(
                              Mono.just(response.bufferFactory().wrap(bytes)));
                        });
              }
              committed.set(true);
              ServerHttpResponse response = call.exchange().getResponse();
              prepare(response, head, target);
              response.getHeaders().remove(HttpHeaders.CONTENT_LENGTH);
              SseFramer framer = new SseFramer();
              AtomicBoolean sawDone = new AtomicBoolean();
              Flux<byte[]> events =
                  body.concatMapIterable(framer::feed)
                      .concatWith(
                          Mono.fromSupplier(() -> Optional.ofNullable(framer.rest()))
                              .flatMap(Mono::justOrEmpty))
                      .filter(ev -> keepEvent(ev, call, usage, sawDone))
                      .concatWith(
                          Mono.defer(
                              () ->
                                  sawDone.get()
                                      ? Mono.empty()
                                      : Mono.error(
                                          new UpstreamException(
                                              Kind.CONNECT,
                                              0,
                                              "stream ended without [DONE]",
                                              null))))
                      .doOnComplete(success)
                      .onErrorResume(
                          t -> {
                            failure.accept(t);
                            meters
                                .counter("sightline_gateway_midstream_failures_total")
                                .increment();
                            log.warn(
                                "worker {} died mid-stream: {}", target.workerId(), t.toString());
                            return Mono.just(
                                OpenAiErrors.sseEvent(
                                    OpenAiException.badGateway(
                                        "The worker failed while streaming the answer.")));
                          });
              return response.writeAndFlushWith(
                  events.map(ev -> Mono.just((DataBuffer) response.bufferFactory().wrap(ev))));
            },
            false)
        .then()
        .onErrorResume(
            UpstreamException.class,
            e -> {
              failure.accept(e);
              if (committed.get()) {
                return Mono.empty();
              }
              return failover(call, target, attempt, tried, e);
            })
        .doOnError(failure)
        .doFinally(
            signal -> {
              if (signal == reactor.core.publisher.SignalType.CANCEL
                  && settled.compareAndSet(false, true)) {
                cb.releasePermission();
              }
              if (committed.get()) {
                finish(call, target, usage.get());
              } else {
                release(target.routingId(), null); // idempotent after a failover's release
              }
            });
  }

  private void prepare(ServerHttpResponse response, Head head, Target target) {
    response.setStatusCode(HttpStatusCode.valueOf(head.status()));
    String contentType = head.headers().get("content-type");
    response
        .getHeaders()
        .setContentType(
            contentType == null
                ? MediaType.APPLICATION_JSON
                : MediaType.parseMediaType(contentType));
    if (head.status() == 200
        && contentType != null
        && contentType.startsWith("text/event-stream")) {
      response.getHeaders().setCacheControl("no-cache");
    }
    response.getHeaders().set(WORKER_HEADER, target.workerId());
    response.getHeaders().set(OVERLAP_HEADER, target.overlapBlocks() + "/" + target.totalBlocks());
  }

  /**
   * Looks at one SSE event: records usage, hides the usage-only chunk the client did not ask for.
   */
  private boolean keepEvent(
      byte[] event, Call call, AtomicReference<Usage> usage, AtomicBoolean sawDone) {
    String data = SseFramer.data(event);
    if (data != null && data.strip().equals("[DONE]")) {
      sawDone.set(true);
      return true;
    }
    if (data == null || data.indexOf("\"usage\"") < 0) {
      return true;
    }
    try {
      JsonNode node = mapper.readTree(data);
      Usage u = Usage.of(node);
      if (u != null) {
        usage.set(u);
        JsonNode choices = node.get("choices");
        boolean usageOnly = choices != null && choices.isArray() && choices.isEmpty();
        return !(call.injectedUsage() && usageOnly);
      }
    } catch (java.io.IOException e) {
      // Not JSON: pass it on untouched; the worker's problem, not ours.
    }
    return true;
  }

  private Usage parseUsage(byte[] json) {
    try {
      return Usage.of(mapper.readTree(json));
    } catch (java.io.IOException e) {
      return null;
    }
  }

  /** Release to the router, quota correction and predicted-vs-actual metrics. */
  private void finish(Call call, Target target, Usage usage) {
    Integer cached = usage == null ? null : usage.cachedTokens();
    release(target.routingId(), cached);
    if (usage != null) {
      quotas
          .adjustTokens(call.principal(), usage.totalTokens() - call.estimatedTokens())
          .onErrorResume(e -> Mono.empty())
          .subscribe();
    }
    long predicted = (long) target.overlapBlocks() * target.blockSize();
    DistributionSummary.builder("sightline_gateway_cached_tokens_predicted")
        .description(
            "Prompt tokens the router predicted the chosen worker holds (overlap blocks x block size)")
        .tag("model", call.model().id())
        .register(meters)
        .record(predicted);
    if (cached != null) {
      DistributionSummary.builder("sightline_gateway_cached_tokens_actual")
          .description(
              "Prompt tokens the worker reported as cached (usage.prompt_tokens_details.cached_tokens)")
          .tag("model", call.model().id())
          .register(meters)
          .record(cached);
      DistributionSummary.builder("sightline_gateway_cached_tokens_abs_error")
          .description("|actual - predicted| cached prompt tokens per request")
          .tag("model", call.model().id())
          .register(meters)
          .record(Math.abs(cached - predicted));
    }
    meters
        .counter(
            "sightline_gateway_requests_total",
            "endpoint",
            call.chat() ? "chat" : "completions",
            "status",
            Integer.toString(
                call.exchange().getResponse().getStatusCode() == null
                    ? 0
                    : call.exchange().getResponse().getStatusCode().value()))
        .increment();
  }

  private void release(String routingId, Integer cachedTokens) {
    if (routingId == null) {
      return;
    }
    Mono<Object> release =
        Mono.fromRunnable(() -> router.release(new ReleaseRequest(routingId, cachedTokens)));
    (remoteRouter ? release.subscribeOn(Schedulers.boundedElastic()) : release)
        .doOnError(e -> log.warn("release of {} failed: {}", routingId, e.toString()))
        .onErrorResume(e -> Mono.empty())
        .subscribe();
  }

  static String endpointUrl(String baseUrl, boolean chat) {
    String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    if (!base.endsWith("/v1")) {
      base = base + "/v1";
    }
    return base + (chat ? "/chat/completions" : "/completions");
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
