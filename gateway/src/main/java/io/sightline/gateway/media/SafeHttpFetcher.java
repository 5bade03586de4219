package io.sightline.gateway.media;

import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.resolver.AddressResolver;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.InetNameResolver;
import io.netty.resolver.InetSocketAddressResolver;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Promise;
import io.sightline.gateway.media.MediaException.Reason;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClient;

/**
 * Fetches image bytes from client-supplied URLs without becoming an SSRF proxy
 * (../shared/reference/ecosystem.md §5; vllm#57157, CVE-2025-6242, Dynamo#8569).
 *
 * <p>Per hop:
 *
 * <ol>
 *   <li>only {@code http}/{@code https} (or {@code https} alone), no user-info in the URL;
 *   <li>the host name goes through the domain allow/deny lists and internal-name checks;
 *   <li>it is resolved once by {@link HostResolver}; <em>every</em> address is checked against
 *       {@link AddressPolicy} and one refused address refuses the URL;
 *   <li>the connection goes to that checked address: Netty's resolver for the request is a pinned
 *       one that answers only with it, so a second DNS answer (rebinding) is never consulted, while
 *       the URL's host still drives SNI and the {@code Host} header;
 *   <li>redirects are not followed by the client: each {@code Location} is a new hop through the
 *       same checks, at most {@code maxRedirects} times.
 * </ol>
 *
 * Bodies are read through a byte cap while streaming: a prefix fetch sends {@code Range:
 * bytes=0-(n-1)} and stops reading after n bytes even if the server ignores the range; a full
 * download fails as soon as the cap is passed. Connect and response timeouts apply to every hop.
 * Connections are not pooled (the response is often abandoned mid-body).
 */
public final class SafeHttpFetcher {
  private final AddressPolicy policy;
  private final HostResolver resolver;
  private final HttpClient baseClient;
  private final Duration timeout;
  private final int maxRedirects;
  private final boolean httpsOnly;

  /**
   * @param timeout limit for each hop's whole exchange (connect, headers and body)
   */
  public SafeHttpFetcher(
      AddressPolicy policy,
      HostResolver resolver,
      Duration connectTimeout,
      Duration timeout,
      int maxRedirects,
      boolean httpsOnly) {
    this.policy = policy;
    this.resolver = resolver;
    this.timeout = timeout;
    this.maxRedirects = maxRedirects;
    this.httpsOnly = httpsOnly;
    this.baseClient =
        HttpClient.newConnection()
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
            .responseTimeout(timeout)
            .followRedirect(false)
            .noProxy()
            .headers(h -> h.set(HttpHeaderNames.USER_AGENT, "sightline-gateway"));
  }

  /**
   * Bytes fetched from a URL.
   *
   * @param bytes what was read (at most the requested number)
   * @param complete whether {@code bytes} is the whole resource
   */
  public record Fetched(byte[] bytes, boolean complete) {}

  /** Up to the first {@code maxBytes} bytes of {@code url} (a range request). */
  public Mono<Fetched> fetchPrefix(String url, int maxBytes) {
    return hop(parse(url), maxBytes, true, 0);
  }

  /** The whole resource; fails with 400 once it passes {@code maxBytes}. */
  public Mono<Fetched> fetchAll(String url, long maxBytes) {
    return hop(parse(url), maxBytes, false, 0);
  }

  private URI parse(String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (Exception e) {
      throw new MediaException(Reason.BAD_URL, "Image URL is not a valid URL.");
    }
    return uri;
  }

  private Mono<Fetched> hop(URI uri, long maxBytes, boolean prefix, int redirects) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("https") || (!httpsOnly && scheme.equals("http")))) {
      return Mono.error(
          new MediaException(
              Reason.BAD_URL,
              "Image URL scheme '" + scheme + "' is not allowed (" + allowedSchemes() + ")."));
    }
    if (uri.getRawUserInfo() != null) {
      return Mono.error(
          new MediaException(Reason.BAD_URL, "Image URL must not carry credentials."));
    }
    String host = AddressPolicy.normalise(uri.getHost());
    String refused = policy.checkHost(host);
    if (refused != null) {
      Reason r = host.isEmpty() ? Reason.BAD_URL : Reason.BLOCKED_DOMAIN;
      return Mono.error(new MediaException(r, "Image URL refused: " + refused + "."));
    }
    return pin(host)
        .flatMap(address -> exchange(uri, host, address, maxBytes, prefix, redirects))
        .timeout(
            timeout,
            Mono.error(
                () -> new MediaException(Reason.TIMEOUT, "Image URL did not answer in time.")));
  }

  private String allowedSchemes() {
    return httpsOnly ? "https only" : "http or https";
  }

  /** Resolves {@code host} once and checks every address; the first one is used. */
  private Mono<InetAddress> pin(String host) {
    InetAddress literal = AddressPolicy.isLiteral(host);
    if (literal != null) {
      return check(host, List.of(literal));
    }
    return Mono.fromCallable(() -> resolver.resolve(host))
        .subscribeOn(Schedulers.boundedElastic())
        .onErrorMap(
            UnknownHostException.class,
            e -> new MediaException(Reason.FETCH_FAILED, "Image host '" + host + "' not found."))
        .flatMap(addresses -> check(host, addresses));
  }

  private Mono<InetAddress> check(String host, List<InetAddress> addresses) {
    if (addresses.isEmpty()) {
      return Mono.error(
          new MediaException(Reason.FETCH_FAILED, "Image host '" + host + "' has no address."));
    }
    for (InetAddress a : addresses) {
      String refused = policy.checkAddress(host, a);
      if (refused != null) {
        return Mono.error(
            new MediaException(Reason.BLOCKED_ADDRESS, "Image URL refused: " + refused + "."));
      }
    }
    return Mono.just(addresses.get(0));
  }

  private Mono<Fetched> exchange(
      URI uri, String host, InetAddress address, long maxBytes, boolean prefix, int redirects) {
    PinnedResolverGroup group = new PinnedResolverGroup(host, address);
    HttpClient client =
        baseClient
            .resolver(group)
            .headers(
                h -> {
                  h.set(HttpHeaderNames.ACCEPT, "image/*");
                  if (prefix) {
                    h.set(HttpHeaderNames.RANGE, "bytes=0-" + (maxBytes - 1));
                  }
                });
    return client
        .get()
        .uri(uri)
        .response(
            (response, body) -> {
              int status = response.status().code();
              if (status >= 300 && status < 400 && status != 304) {
                String location = response.responseHeaders().get(HttpHeaderNames.LOCATION);
                if (location == null) {
                  return Mono.error(
                      new MediaException(
                          Reason.FETCH_FAILED, "Image URL redirected without a Location."));
                }
                if (redirects >= maxRedirects) {
                  return Mono.error(
                      new MediaException(
                          Reason.FETCH_FAILED,
                          "Image URL redirected more than " + maxRedirects + " times."));
                }
                URI next;
                try {
                  next = uri.resolve(location.strip());
                } catch (IllegalArgumentException e) {
                  return Mono.error(
                      new MediaException(Reason.BAD_URL, "Image URL redirected to a bad URL."));
                }
                return body.then(Mono.defer(() -> hop(next, maxBytes, prefix, redirects + 1)));
              }
              if (status != 200 && status != 206) {
                return Mono.error(
                    new MediaException(
                        Reason.FETCH_FAILED, "Image URL answered HTTP " + status + "."));
              }
              long declared = response.responseHeaders().getInt(HttpHeaderNames.CONTENT_LENGTH, -1);
              if (!prefix && declared > maxBytes) {
                return Mono.error(tooLarge(maxBytes));
              }
              long total = totalSize(status, response.responseHeaders().get("Content-Range"));
              Accumulator acc = new Accumulator(maxBytes, prefix);
              return body.asByteArray()
                  .takeUntil(acc::add)
                  .then(
                      Mono.fromCallable(
                          () -> {
                            byte[] bytes = acc.bytes();
                            boolean complete =
                                status == 200
                                    ? !acc.full() || (declared >= 0 && bytes.length >= declared)
                                    : total >= 0 && bytes.length >= total;
                            return new Fetched(bytes, complete);
                          }));
            })
        .next()
        .onErrorMap(
            e -> !(e instanceof MediaException),
            e ->
                isTimeout(e)
                    ? new MediaException(Reason.TIMEOUT, "Image URL did not answer in time.")
                    : new MediaException(
                        Reason.FETCH_FAILED, "Image URL could not be fetched: " + brief(e)))
        .doFinally(s -> group.close());
  }

  private static MediaException tooLarge(long maxBytes) {
    return new MediaException(
        Reason.TOO_LARGE, "Image is larger than the download limit of " + maxBytes + " bytes.");
  }

  private static boolean isTimeout(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException
          || t instanceof io.netty.handler.timeout.ReadTimeoutException
          || t instanceof io.netty.channel.ConnectTimeoutException) {
        return true;
      }
    }
    return false;
  }

  private static String brief(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName();
  }

  /** Total size from {@code Content-Range: bytes 0-4095/12345}; -1 when unknown. */
  static long totalSize(int status, String contentRange) {
    if (status != 206 || contentRange == null) {
      return -1;
    }
    int slash = contentRange.lastIndexOf('/');
    if (slash < 0) {
      return -1;
    }
    try {
      return Long.parseLong(contentRange.substring(slash + 1).strip());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Collects chunks up to a cap: truncates (prefix mode) or fails (full mode) past it. */
  private static final class Accumulator {
    private final long cap;
    private final boolean truncate;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private boolean full;

    Accumulator(long cap, boolean truncate) {
      this.cap = cap;
      this.truncate = truncate;
    }

    /** Adds a chunk; true when no more bytes are wanted. */
    boolean add(byte[] chunk) {
      long room = cap - out.size();
      if (chunk.length > room) {
        if (!truncate) {
          throw tooLarge(cap);
        }
        out.write(chunk, 0, (int) room);
        full = true;
        return true;
      }
      out.write(chunk, 0, chunk.length);
      full = out.size() >= cap;
      return full;
    }

    boolean full() {
      return full;
    }

    byte[] bytes() {
      return out.toByteArray();
    }
  }

  /**
   * A resolver that knows exactly one name: the host already resolved and checked for this hop.
   * Connecting through it pins the connection to the checked address.
   */
  private static final class PinnedResolverGroup extends AddressResolverGroup<InetSocketAddress> {
    private final String host;
    private final InetAddress address;

    PinnedResolverGroup(String host, InetAddress address) {
      this.host = host;
      this.address = address;
    }

    @Override
    protected AddressResolver<InetSocketAddress> newResolver(EventExecutor executor) {
      return new InetSocketAddressResolver(
          executor,
          new InetNameResolver(executor) {
            @Override
            protected void doResolve(String inetHost, Promise<InetAddress> promise) {
              if (AddressPolicy.normalise(inetHost).equals(host)) {
                promise.setSuccess(address);
              } else {
                promise.setFailure(new UnknownHostException("not pinned: " + inetHost));
              }
            }

            @Override
            protected void doResolveAll(String inetHost, Promise<List<InetAddress>> promise) {
              if (AddressPolicy.normalise(inetHost).equals(host)) {
                promise.setSuccess(List.of(address));
              } else {
                promise.setFailure(new UnknownHostException("not pinned: " + inetHost));
              }
            }
          });
    }
  }
}
