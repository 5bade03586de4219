package io.sightline.gateway.proxy;

import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.timeout.ReadTimeoutException;
import io.sightline.gateway.proxy.UpstreamException.Kind;
import java.net.ConnectException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import reactor.core.publisher.Flux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.PrematureCloseException;
import reactor.netty.resources.ConnectionProvider;

/**
 * HTTP/1.1 client to the workers, pooled per worker address. A call returns one Flux whose first
 * element is the response {@link Head} and whose remaining elements are body chunks as they arrive,
 * so the caller can decide on the status (and retry elsewhere) before anything reaches the client,
 * and then stream the rest without buffering.
 */
public final class WorkerClient {
  private final HttpClient client;
  private final ConnectionProvider pool;

  public WorkerClient(Duration connectTimeout, Duration firstByteTimeout) {
    this.pool =
        ConnectionProvider.builder("sightline-workers")
            .maxConnections(1024)
            .pendingAcquireMaxCount(-1)
            .maxIdleTime(Duration.ofSeconds(30))
            .build();
    this.client =
        HttpClient.create(pool)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
            .responseTimeout(firstByteTimeout)
            .followRedirect(false)
            .noProxy()
            .keepAlive(true);
  }

  /** Response status and headers. */
  public record Head(int status, HttpHeaders headers) {}

  /**
   * POSTs {@code json} to {@code url}; first element {@link Head}, then {@code byte[]} chunks.
   * Failures before the head are {@link UpstreamException}s.
   */
  public Flux<Object> post(String url, byte[] json, boolean stream) {
    return client
        .headers(
            h -> {
              h.set(HttpHeaderNames.CONTENT_TYPE, "application/json");
              // A fixed length rather than chunked: some engine front-ends handle it better.
              h.setInt(HttpHeaderNames.CONTENT_LENGTH, json.length);
              h.set(HttpHeaderNames.ACCEPT, stream ? "text/event-stream" : "application/json");
            })
        .post()
        .uri(url)
        .send((req, out) -> out.sendByteArray(reactor.core.publisher.Mono.just(json)))
        .response(
            (resp, body) ->
                Flux.concat(
                    Flux.just(new Head(resp.status().code(), resp.responseHeaders())),
                    body.asByteArray()))
        .onErrorMap(e -> !(e instanceof UpstreamException), WorkerClient::classify);
  }

  static Throwable classify(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException
          || t instanceof ReadTimeoutException
          || t instanceof io.netty.channel.ConnectTimeoutException) {
        return new UpstreamException(Kind.TIMEOUT, 0, "worker timed out", e);
      }
      if (t instanceof ConnectException) {
        return new UpstreamException(Kind.CONNECT, 0, "worker refused the connection", e);
      }
    }
    if (e instanceof PrematureCloseException) {
      return new UpstreamException(Kind.CONNECT, 0, "worker closed the connection", e);
    }
    return new UpstreamException(Kind.CONNECT, 0, "worker connection failed: " + e, e);
  }

  public void close() {
    pool.dispose();
  }
}
