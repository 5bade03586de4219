package io.sightline.registry.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sightline.registry.client.WireFormat;
import io.sightline.registry.model.ApiKey;
import io.sightline.registry.model.ModelCard;
import io.sightline.registry.model.RegistryJson;
import io.sightline.registry.model.Versioned;
import io.sightline.registry.model.WorkerInstance;
import io.sightline.registry.model.WorkerState;
import io.sightline.registry.service.ConflictException;
import io.sightline.registry.service.FieldError;
import io.sightline.registry.service.RegistryService;
import io.sightline.registry.service.ValidationException;
import io.sightline.registry.store.NotFoundException;
import io.sightline.registry.store.RegistryStore;
import io.sightline.registry.store.RevisionConflictException;
import io.sightline.registry.store.Snapshot;
import io.sightline.registry.store.StoreEvent;
import io.sightline.registry.store.StoreUnavailableException;
import io.sightline.registry.store.StoreWatch;
import io.sightline.registry.store.StoreWatcher;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * The admin REST API and the SSE change stream (routes in {@link RegistryRoutes}, documented in
 * docs/registry.md). Bodies are read as bytes (bounded by {@code max-body-size}, else 413) and
 * parsed with Sightline's strict Jackson 2 mapper, so parse errors carry the JSON path of the bad
 * field. Store calls block (jetcd futures, file writes) and run on the bounded-elastic scheduler.
 *
 * <p>Optimistic concurrency over HTTP: every entry carries its revision as an {@code ETag}; a write
 * with {@code If-Match: "<rev>"} only succeeds at that revision, {@code If-None-Match: *} only
 * creates; otherwise 409 with the current revision in the message.
 */
public final class RegistryHandler implements SmartLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(RegistryHandler.class);
  private static final ObjectMapper JSON = RegistryJson.mapper();

  private final RegistryService service;
  private final int maxBodyBytes;
  private final Duration heartbeat;
  private final Sinks.Empty<Void> stopping = Sinks.empty();
  private volatile boolean running;

  public RegistryHandler(RegistryService service, int maxBodyBytes, Duration heartbeat) {
    this.service = service;
    this.maxBodyBytes = maxBodyBytes;
    this.heartbeat = heartbeat;
  }

  // --- models, workers, API keys: the same CRUD shape over three kinds of entry -----------------

  /** What differs between the models, workers and API keys endpoints. */
  private record Kind<T>(
      String noun,
      String collection,
      String keyField,
      Class<T> type,
      Function<T, String> keyOf,
      BiFunction<T, String, T> withKey,
      Function<Versioned<T>, ObjectNode> wire) {}

  /** A store write at an expected revision. */
  @FunctionalInterface
  private interface Put<T> {
    Versioned<T> put(T value, long expectedRevision);
  }

  private static final Kind<ModelCard> MODELS =
      new Kind<>(
          "model",
          "/v1/admin/models/",
          "name",
          ModelCard.class,
          ModelCard::name,
          (card, name) ->
              new ModelCard(
                  card.schemaVersion(),
                  name,
                  card.aliases(),
                  card.backend(),
                  card.hf(),
                  card.processorFamily(),
                  card.processorFamilySource(),
                  card.kvBlockSize(),
                  card.mmScheme(),
                  card.mediaDecoder(),
                  card.routingMode(),
                  card.loraAdapters(),
                  card.contextLength()),
          WireFormat::model);

  private static final Kind<WorkerInstance> WORKERS =
      new Kind<>(
          "worker",
          "/v1/admin/workers/",
          "id",
          WorkerInstance.class,
          WorkerInstance::id,
          (w, id) ->
              new WorkerInstance(
                  w.schemaVersion(),
                  id,
                  w.model(),
                  w.servedModelName(),
                  w.baseUrl(),
                  w.dialect(),
                  w.dataParallelSize(),
                  w.kvBlockSize(),
                  w.kvEvents(),
                  w.metricsUrl(),
                  w.labels(),
                  w.state(),
                  w.leaseTtlSeconds()),
          WireFormat::worker);

  private static final Kind<ApiKey> API_KEYS =
      new Kind<>(
          "api key",
          "/v1/admin/api-keys/",
          "name",
          ApiKey.class,
          ApiKey::name,
          (k, name) ->
              new ApiKey(
                  k.schemaVersion(),
                  name,
                  k.hash(),
                  k.allowedModels(),
                  k.requestsPerMinute(),
                  k.tokensPerMinute(),
                  k.enabled(),
                  k.description()),
          WireFormat::apiKey);

  /** {@code {"revision": ..., "items": [...]}} of the selected entries, sorted by key. */
  private <T> Mono<ServerResponse> list(
      Kind<T> kind, Function<Snapshot, Stream<Versioned<T>>> select) {
    return blocking(
        () -> {
          Snapshot s = service.snapshot();
          ObjectNode body = JSON.createObjectNode();
          body.put("revision", s.revision());
          ArrayNode items = body.putArray("items");
          select
              .apply(s)
              .sorted(Comparator.comparing(v -> kind.keyOf().apply(v.value())))
              .forEach(v -> items.add(kind.wire().apply(v)));
          return json(HttpStatus.OK, body.toString(), null);
        });
  }

  private <T> Mono<ServerResponse> get(
      Kind<T> kind, String key, Function<String, Optional<Versioned<T>>> find) {
    return blocking(
        () ->
            find.apply(key)
                .map(RegistryHandler::ok)
                .orElseThrow(() -> new NotFoundException(kind.noun() + " " + key + " not found")));
  }

  private <T> Mono<ServerResponse> create(ServerRequest req, Kind<T> kind, Put<T> put) {
    return withBody(
        req,
        kind.type(),
        value -> {
          Versioned<T> v = put.put(value, RegistryStore.MUST_NOT_EXIST);
          return created(
              kind.collection() + kind.keyOf().apply(v.value()), write(v.value()), v.revision());
        });
  }

  /** A PUT to the entry's URL: the body's key, when given, must match the URL's. */
  private <T> Mono<ServerResponse> replace(
      ServerRequest req, Kind<T> kind, String key, long expected, Put<T> put) {
    return withBody(
        req,
        kind.type(),
        value -> {
          String bodyKey = kind.keyOf().apply(value);
          if (bodyKey != null && !bodyKey.equals(key)) {
            throw new ValidationException(
                kind.keyField(),
                "body "
                    + kind.keyField()
                    + " '"
                    + bodyKey
                    + "' differs from the URL's '"
                    + key
                    + "'");
          }
          return ok(put.put(kind.withKey().apply(value, key), expected));
        });
  }

  // --- models ---------------------------------------------------------------------------------

  Mono<ServerResponse> listModels(ServerRequest req) {
    return list(MODELS, s -> s.models().stream());
  }

  Mono<ServerResponse> getModel(ServerRequest req) {
    return get(MODELS, pathRest(req, "name"), service::model);
  }

  Mono<ServerResponse> createModel(ServerRequest req) {
    return create(req, MODELS, service::putModel);
  }

  Mono<ServerResponse> putModel(ServerRequest req) {
    String name = pathRest(req, "name");
    long expected = expectedRevision(req);
    return replace(req, MODELS, name, expected, service::putModel);
  }

  Mono<ServerResponse> deleteModel(ServerRequest req) {
    String name = pathRest(req, "name");
    long expected = expectedRevision(req);
    return noContent(() -> service.deleteModel(name, expected));
  }

  // --- workers --------------------------------------------------------------------------------

  Mono<ServerResponse> listWorkers(ServerRequest req) {
    Optional<String> model = req.queryParam("model");
    return list(
        WORKERS,
        s -> {
          Optional<String> canonical =
              model.map(m -> service.model(m).map(v -> v.value().name()).orElse(m));
          return s.workers().stream()
              .filter(v -> canonical.isEmpty() || v.value().model().equals(canonical.get()));
        });
  }

  Mono<ServerResponse> getWorker(ServerRequest req) {
    return get(WORKERS, req.pathVariable("id"), service::worker);
  }

  Mono<ServerResponse> createWorker(ServerRequest req) {
    boolean lease = lease(req);
    return create(req, WORKERS, (w, rev) -> service.putWorker(w, rev, lease));
  }

  Mono<ServerResponse> putWorker(ServerRequest req) {
    String id = req.pathVariable("id");
    long expected = expectedRevision(req);
    boolean lease = lease(req);
    return replace(req, WORKERS, id, expected, (w, rev) -> service.putWorker(w, rev, lease));
  }

  Mono<ServerResponse> deleteWorker(ServerRequest req) {
    String id = req.pathVariable("id");
    long expected = expectedRevision(req);
    return noContent(() -> service.deleteWorker(id, expected));
  }

  Mono<ServerResponse> heartbeat(ServerRequest req) {
    String id = req.pathVariable("id");
    return noContent(() -> service.heartbeat(id));
  }

  Mono<ServerResponse> setState(ServerRequest req) {
    String id = req.pathVariable("id");
    long expected = expectedRevision(req);
    return withBody(
        req,
        StateBody.class,
        b -> {
          if (b.state() == null) {
            throw new ValidationException("state", "required (ready or draining)");
          }
          return ok(service.setState(id, b.state(), expected));
        });
  }

  /** Body of {@code PUT /v1/admin/workers/{id}/state}. */
  record StateBody(WorkerState state) {}

  private static boolean lease(ServerRequest req) {
    return req.queryParam("lease").map(Boolean::parseBoolean).orElse(false);
  }

  // --- API keys -------------------------------------------------------------------------------

  Mono<ServerResponse> listApiKeys(ServerRequest req) {
    return list(API_KEYS, s -> s.apiKeys().stream());
  }

  Mono<ServerResponse> getApiKey(ServerRequest req) {
    return get(API_KEYS, req.pathVariable("name"), service::apiKey);
  }

  Mono<ServerResponse> createApiKey(ServerRequest req) {
    return create(req, API_KEYS, service::putApiKey);
  }

  Mono<ServerResponse> putApiKey(ServerRequest req) {
    String name = req.pathVariable("name");
    long expected = expectedRevision(req);
    return replace(req, API_KEYS, name, expected, service::putApiKey);
  }

  Mono<ServerResponse> deleteApiKey(ServerRequest req) {
    String name = req.pathVariable("name");
    long expected = expectedRevision(req);
    return noContent(() -> service.deleteApiKey(name, expected));
  }

  // --- snapshot, watch, schema ----------------------------------------------------------------

  Mono<ServerResponse> snapshot(ServerRequest req) {
    return blocking(
        () -> json(HttpStatus.OK, WireFormat.snapshot(service.snapshot()).toString(), null));
  }

  Mono<ServerResponse> watch(ServerRequest req) {
    long from;
    try {
      String q =
          req.queryParam("from_revision")
              .or(
                  () ->
                      Optional.ofNullable(req.headers().firstHeader("Last-Event-ID"))
                          .map(id -> String.valueOf(Long.parseLong(id.trim()) + 1)))
              .orElse(null);
      from = q == null ? -1 : Long.parseLong(q.trim());
    } catch (NumberFormatException e) {
      return error(
          new ApiError(HttpStatus.BAD_REQUEST, "bad_revision", "from_revision must be an integer"));
    }
    long start = from;
    Flux<ServerSentEvent<String>> stream =
        Flux.<ServerSentEvent<String>>create(
                sink -> {
                  if (start < 0) {
                    // no position given: tell the client to load a snapshot first
                    sink.next(resync(0));
                    sink.complete();
                    return;
                  }
                  StoreWatch w;
                  try {
                    w = service.store().watch(start, new SinkWatcher(sink));
                  } catch (RuntimeException e) {
                    sink.error(e);
                    return;
                  }
                  // keep-alive comments share the sink (FluxSink serialises concurrent producers)
                  Disposable ticker =
                      Flux.interval(heartbeat)
                          .subscribe(
                              i ->
                                  sink.next(
                                      ServerSentEvent.<String>builder()
                                          .comment("keep-alive")
                                          .build()));
                  sink.onDispose(
                      () -> {
                        ticker.dispose();
                        w.close();
                      });
                },
                FluxSink.OverflowStrategy.BUFFER)
            .subscribeOn(Schedulers.boundedElastic())
            // end open change streams when the app stops, so graceful shutdown need not wait for
            // long-lived SSE connections (clients reconnect and resume from their revision)
            .takeUntilOther(stopping.asMono());
    return ServerResponse.ok()
        .contentType(MediaType.TEXT_EVENT_STREAM)
        .header(HttpHeaders.CACHE_CONTROL, "no-cache")
        .body(BodyInserters.fromServerSentEvents(stream));
  }

  private static ServerSentEvent<String> resync(long compactRevision) {
    return ServerSentEvent.<String>builder()
        .event("resync")
        .data("{\"compact_revision\":" + compactRevision + "}")
        .build();
  }

  /** Forwards store events into the SSE sink; a failing store ends the stream (client resumes). */
  private static final class SinkWatcher implements StoreWatcher {
    private final FluxSink<ServerSentEvent<String>> sink;

    SinkWatcher(FluxSink<ServerSentEvent<String>> sink) {
      this.sink = sink;
    }

    @Override
    public void onEvents(List<StoreEvent> events) {
      for (StoreEvent e : events) {
        sink.next(
            ServerSentEvent.<String>builder()
                .id(Long.toString(e.revision()))
                .event("change")
                .data(WireFormat.event(e))
                .build());
      }
    }

    @Override
    public void onCompacted(long compactRevision) {
      sink.next(resync(compactRevision));
      sink.complete();
    }

    @Override
    public void onError(Throwable error) {
      LOG.debug("store watch failed; ending SSE stream: {}", error.toString());
      sink.complete();
    }
  }

  Mono<ServerResponse> schema(ServerRequest req) {
    String which = req.pathVariable("name");
    String resource =
        switch (which) {
          case "model-card" -> "/schema/model-card.v1.schema.json";
          case "worker-instance" -> "/schema/worker-instance.v1.schema.json";
          case "api-key" -> "/schema/api-key.v1.schema.json";
          default -> null;
        };
    if (resource == null) {
      return error(new ApiError(HttpStatus.NOT_FOUND, "not_found", "no schema '" + which + "'"));
    }
    try (InputStream in = RegistryHandler.class.getResourceAsStream(resource)) {
      if (in == null) {
        return error(new ApiError(HttpStatus.NOT_FOUND, "not_found", "schema missing"));
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return ServerResponse.ok()
          .contentType(MediaType.valueOf("application/schema+json"))
          .bodyValue(text);
    } catch (IOException e) {
      return error(
          new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, "internal", "cannot read schema"));
    }
  }

  // --- lifecycle ---------------------------------------------------------------------------

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    stopping.tryEmitEmpty();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** Stops before the web server's graceful shutdown (which would otherwise wait on SSE). */
  @Override
  public int getPhase() {
    return Integer.MAX_VALUE;
  }

  // --- plumbing -------------------------------------------------------------------------------

  private Mono<byte[]> body(ServerRequest req) {
    long declared = req.headers().contentLength().orElse(-1);
    if (declared > maxBodyBytes) {
      return Mono.error(tooLarge());
    }
    Optional<MediaType> type = req.headers().contentType();
    if (type.isPresent() && !type.get().isCompatibleWith(MediaType.APPLICATION_JSON)) {
      return Mono.error(
          new ApiError(
              HttpStatus.UNSUPPORTED_MEDIA_TYPE,
              "unsupported_media_type",
              "send the body as application/json"));
    }
    return DataBufferUtils.join(req.bodyToFlux(DataBuffer.class), maxBodyBytes)
        .map(
            buf -> {
              byte[] bytes = new byte[buf.readableByteCount()];
              buf.read(bytes);
              DataBufferUtils.release(buf);
              return bytes;
            })
        .switchIfEmpty(
            Mono.error(
                new ApiError(HttpStatus.BAD_REQUEST, "empty_body", "a JSON body is required")))
        .onErrorMap(DataBufferLimitException.class, e -> tooLarge());
  }

  private ApiError tooLarge() {
    return new ApiError(
        HttpStatus.CONTENT_TOO_LARGE,
        "payload_too_large",
        "request body exceeds " + maxBodyBytes + " bytes (sightline.registry.max-body-size)");
  }

  static <T> T parse(byte[] bytes, Class<T> type) {
    try {
      T value = JSON.readValue(bytes, type);
      if (value == null) {
        throw new ValidationException("$", "body must be a JSON object");
      }
      return value;
    } catch (JsonProcessingException e) {
      throw new ValidationException(List.of(describe(e)));
    } catch (IOException e) {
      throw new ValidationException("$", "unreadable body: " + e.getMessage());
    }
  }

  /** A field path and a short message for a Jackson error, without Java class names. */
  static FieldError describe(JsonProcessingException e) {
    String path = "$";
    if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
      StringBuilder sb = new StringBuilder();
      for (JsonMappingException.Reference r : m.getPath()) {
        if (r.getFieldName() != null) {
          if (!sb.isEmpty()) {
            sb.append('.');
          }
          sb.append(r.getFieldName());
        } else if (r.getIndex() >= 0) {
          sb.append('[').append(r.getIndex()).append(']');
        }
      }
      path = sb.isEmpty() ? "$" : sb.toString();
    }
    String message;
    if (e instanceof UnrecognizedPropertyException u) {
      message = "unknown field '" + u.getPropertyName() + "'";
    } else if (e instanceof ValueInstantiationException v && v.getCause() != null) {
      message = v.getCause().getMessage();
    } else if (e instanceof JsonMappingException m
        && m.getCause() instanceof IllegalArgumentException iae) {
      message = iae.getMessage();
    } else {
      message = e.getOriginalMessage();
      int cut = message.indexOf(" (for ");
      message = cut > 0 ? message.substring(0, cut) : message;
      message = message.replaceAll("`[a-zA-Z0-9_.$]+\\.([A-Za-z0-9_$]+)`", "$1");
    }
    return new FieldError(path, message);
  }

  private static String write(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long expectedRevision(ServerRequest req) {
    String ifMatch = req.headers().firstHeader(HttpHeaders.IF_MATCH);
    String ifNoneMatch = req.headers().firstHeader(HttpHeaders.IF_NONE_MATCH);
    if (ifNoneMatch != null && ifNoneMatch.trim().equals("*")) {
      return RegistryStore.MUST_NOT_EXIST;
    }
    if (ifMatch == null || ifMatch.trim().equals("*")) {
      return RegistryStore.ANY_REVISION;
    }
    String v = ifMatch.trim();
    if (v.startsWith("W/")) {
      v = v.substring(2);
    }
    v = v.replace("\"", "");
    try {
      long rev = Long.parseLong(v);
      if (rev < 1) {
        throw new NumberFormatException();
      }
      return rev;
    } catch (NumberFormatException e) {
      throw new ApiError(
          HttpStatus.BAD_REQUEST, "bad_revision", "If-Match must be a revision such as \"12\"");
    }
  }

  /** The rest of the path after a {@code {*name}} capture, without its leading slash. */
  private static String pathRest(ServerRequest req, String var) {
    String v = req.pathVariable(var);
    return v.startsWith("/") ? v.substring(1) : v;
  }

  private static Mono<ServerResponse> json(HttpStatus status, String body, Long revision) {
    ServerResponse.BodyBuilder b =
        ServerResponse.status(status).contentType(MediaType.APPLICATION_JSON);
    if (revision != null) {
      b.eTag("\"" + revision + "\"");
    }
    return b.bodyValue(body);
  }

  private static Mono<ServerResponse> created(String location, String body, long revision) {
    return ServerResponse.created(URI.create(location.replace(" ", "%20")))
        .contentType(MediaType.APPLICATION_JSON)
        .eTag("\"" + revision + "\"")
        .bodyValue(body);
  }

  private static Mono<ServerResponse> blocking(Callable<Mono<ServerResponse>> work) {
    return Mono.fromCallable(work).subscribeOn(Schedulers.boundedElastic()).flatMap(m -> m);
  }

  /** Reads and parses the body, then answers with {@code handle} on the blocking scheduler. */
  private <T> Mono<ServerResponse> withBody(
      ServerRequest req, Class<T> type, Function<T, Mono<ServerResponse>> handle) {
    return body(req).flatMap(bytes -> blocking(() -> handle.apply(parse(bytes, type))));
  }

  /** 200 with the entry as JSON and its revision as {@code ETag}. */
  private static Mono<ServerResponse> ok(Versioned<?> v) {
    return json(HttpStatus.OK, write(v.value()), v.revision());
  }

  /** 204 after {@code work} has run on the blocking scheduler. */
  private static Mono<ServerResponse> noContent(Runnable work) {
    return blocking(
        () -> {
          work.run();
          return ServerResponse.noContent().build();
        });
  }

  /** Maps exceptions to JSON error answers; unknown ones become a 500 without details. */
  static Mono<ServerResponse> error(Throwable t) {
    ApiError e =
        switch (t) {
          case ApiError a -> a;
          case ValidationException v ->
              new ApiError(
                  HttpStatus.BAD_REQUEST,
                  "validation_failed",
                  v.getMessage(),
                  v.errors(),
                  List.of());
          case ConflictException c ->
              new ApiError(HttpStatus.CONFLICT, c.code(), c.getMessage(), List.of(), c.reasons());
          case RevisionConflictException r ->
              new ApiError(HttpStatus.CONFLICT, "revision_conflict", r.getMessage());
          case NotFoundException n ->
              new ApiError(HttpStatus.NOT_FOUND, "not_found", n.getMessage());
          case StoreUnavailableException s ->
              new ApiError(HttpStatus.SERVICE_UNAVAILABLE, "store_unavailable", s.getMessage());
          default -> {
            LOG.error("registry API failure", t);
            yield new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, "internal", "internal error");
          }
        };
    return ServerResponse.status(e.status())
        .contentType(MediaType.APPLICATION_JSON)
        .bodyValue(e.body());
  }
}
