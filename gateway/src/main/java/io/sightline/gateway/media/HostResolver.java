package io.sightline.gateway.media;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * DNS lookup used by the media fetcher, as a bean so tests can map names to chosen addresses (e.g.
 * a host name that resolves to a private address) without touching real DNS.
 */
@FunctionalInterface
public interface HostResolver {
  /** All addresses of {@code host}; blocking. */
  List<InetAddress> resolve(String host) throws UnknownHostException;

  /** The JVM's resolver. */
  HostResolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));
}
