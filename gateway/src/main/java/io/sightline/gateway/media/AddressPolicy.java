package io.sightline.gateway.media;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Which hosts and addresses the media fetcher may connect to (SSRF defence, see
 * ../shared/reference/ecosystem.md §5 "Our rules").
 *
 * <p>Addresses refused unless {@code allowPrivate} (or the host is explicitly trusted):
 *
 * <ul>
 *   <li>IPv4: 0/8 "this network", 10/8, 172.16/12, 192.168/16 (RFC 1918), 100.64/10 (CGNAT, RFC
 *       6598, also Alibaba's metadata 100.100.100.200), 127/8 loopback, 169.254/16 link-local
 *       (AWS/GCP/Azure metadata 169.254.169.254), 192.0.0/24, 192.0.2/24, 198.18/15, 198.51.100/24,
 *       203.0.113/24 (special / documentation / benchmarking), 224/4 multicast, 240/4 reserved and
 *       broadcast.
 *   <li>IPv6: ::, ::1, fe80::/10 link-local, fec0::/10 site-local, fc00::/7 unique-local (AWS's
 *       fd00:ec2::254 metadata), ff00::/8 multicast, 2001:db8::/32 documentation, 100::/64 discard;
 *       IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible, NAT64 (64:ff9b::/96) and 6to4 (2002::/16)
 *       addresses are judged by the IPv4 address they embed.
 *   <li>Host names that are metadata or cluster-internal by name ({@code metadata.google.internal},
 *       {@code *.internal}, {@code localhost}, {@code kubernetes.default.svc}, {@code *.local}).
 * </ul>
 *
 * Domain allow/deny lists match the URL's host and its subdomains; the denylist wins.
 */
public final class AddressPolicy {
  private static final Set<String> DENIED_NAMES =
      Set.of("localhost", "metadata", "metadata.google.internal", "instance-data");
  private static final List<String> DENIED_SUFFIXES =
      List.of(".localhost", ".internal", ".local", ".svc", ".cluster.local");

  private final boolean allowPrivate;
  private final List<String> allowedDomains;
  private final List<String> deniedDomains;
  private final Set<String> trustedHosts;

  /**
   * @param allowPrivate fetch from internal addresses at all (explicit opt-in)
   * @param allowedDomains if non-empty, the only hosts (and subdomains) that may be fetched
   * @param deniedDomains hosts (and subdomains) never fetched
   * @param trustedHosts hosts whose internal addresses are accepted even without {@code
   *     allowPrivate} (an internal image server); still subject to the domain lists
   */
  public AddressPolicy(
      boolean allowPrivate,
      List<String> allowedDomains,
      List<String> deniedDomains,
      Set<String> trustedHosts) {
    this.allowPrivate = allowPrivate;
    this.allowedDomains = lower(allowedDomains);
    this.deniedDomains = lower(deniedDomains);
    this.trustedHosts = Set.copyOf(lower(List.copyOf(trustedHosts)));
  }

  private static List<String> lower(List<String> in) {
    return in.stream()
        .map(s -> s.strip().toLowerCase(Locale.ROOT))
        .filter(s -> !s.isEmpty())
        .toList();
  }

  /** Refusal reason for a host name before resolving it, or null when it may be resolved. */
  public String checkHost(String host) {
    String h = normalise(host);
    if (h.isEmpty()) {
      return "URL has no host";
    }
    for (String d : deniedDomains) {
      if (matches(h, d)) {
        return "host '" + h + "' is on the denylist";
      }
    }
    if (!allowedDomains.isEmpty() && allowedDomains.stream().noneMatch(d -> matches(h, d))) {
      return "host '" + h + "' is not on the allowlist";
    }
    if (!allowPrivate && !trustedHosts.contains(h) && isLiteral(h) == null) {
      if (DENIED_NAMES.contains(h) || DENIED_SUFFIXES.stream().anyMatch(h::endsWith)) {
        return "host '" + h + "' is an internal name";
      }
    }
    return null;
  }

  /** Refusal reason for one resolved address of {@code host}, or null when it is acceptable. */
  public String checkAddress(String host, InetAddress address) {
    if (allowPrivate || trustedHosts.contains(normalise(host))) {
      return null;
    }
    String why = internalRange(address);
    return why == null ? null : "address " + address.getHostAddress() + " is " + why;
  }

  private static boolean matches(String host, String domain) {
    return host.equals(domain) || host.endsWith("." + domain);
  }

  static String normalise(String host) {
    if (host == null) {
      return "";
    }
    String h = host.strip().toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    while (h.endsWith(".")) {
      h = h.substring(0, h.length() - 1);
    }
    return h;
  }

  /**
   * The address an IP-literal host stands for, or null when the host is a name. Only dotted-quad
   * IPv4 and bracketless IPv6 literals are recognised; anything else is resolved by DNS (whose
   * answers are checked too).
   */
  public static InetAddress isLiteral(String host) {
    String h = normalise(host);
    boolean v4 = h.matches("\\d{1,3}(\\.\\d{1,3}){3}");
    boolean v6 = h.contains(":") && h.matches("[0-9a-f:.%a-z]+");
    if (!v4 && !v6) {
      return null;
    }
    try {
      return InetAddress.getByName(h); // literal: no DNS lookup
    } catch (UnknownHostException e) {
      return null;
    }
  }

  /** Which internal range {@code a} is in, or null for a public address. */
  public static String internalRange(InetAddress a) {
    if (a instanceof Inet4Address v4) {
      return ipv4Range(v4.getAddress());
    }
    if (a instanceof Inet6Address v6) {
      byte[] b = v6.getAddress();
      if (a.isAnyLocalAddress()) {
        return "the unspecified address";
      }
      if (a.isLoopbackAddress()) {
        return "loopback";
      }
      int b0 = b[0] & 0xFF;
      int b1 = b[1] & 0xFF;
      if (b0 == 0xFE && (b1 & 0xC0) == 0x80) {
        return "link-local";
      }
      if (b0 == 0xFE && (b1 & 0xC0) == 0xC0) {
        return "site-local";
      }
      if ((b0 & 0xFE) == 0xFC) {
        return "unique-local (fc00::/7)";
      }
      if (b0 == 0xFF) {
        return "multicast";
      }
      if (b0 == 0x20 && b1 == 0x01 && (b[2] & 0xFF) == 0x0D && (b[3] & 0xFF) == 0xB8) {
        return "documentation (2001:db8::/32)";
      }
      if (b0 == 0x01 && allZero(b, 1, 8)) {
        return "discard-only (100::/64)";
      }
      // Embedded IPv4: mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96.
      boolean mapped = allZero(b, 0, 10) && (b[10] & 0xFF) == 0xFF && (b[11] & 0xFF) == 0xFF;
      boolean compatible = allZero(b, 0, 12);
      boolean nat64 =
          b0 == 0x00
              && b1 == 0x64
              && (b[2] & 0xFF) == 0xFF
              && (b[3] & 0xFF) == 0x9B
              && allZero(b, 4, 12);
      if (mapped || compatible || nat64) {
        byte[] v4 = {b[12], b[13], b[14], b[15]};
        String r = ipv4Range(v4);
        return r == null ? null : r + " (embedded IPv4)";
      }
      if (b0 == 0x20 && b1 == 0x02) { // 6to4: 2002:a.b.c.d::/48
        String r = ipv4Range(new byte[] {b[2], b[3], b[4], b[5]});
        return r == null ? null : r + " (6to4)";
      }
      return null;
    }
    return "not an IP address";
  }

  private static boolean allZero(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static String ipv4Range(byte[] b) {
    int a0 = b[0] & 0xFF;
    int a1 = b[1] & 0xFF;
    int a2 = b[2] & 0xFF;
    if (a0 == 0) {
      return "in 0.0.0.0/8";
    }
    if (a0 == 10) {
      return "private (10.0.0.0/8)";
    }
    if (a0 == 100 && (a1 & 0xC0) == 64) {
      return "CGNAT (100.64.0.0/10)";
    }
    if (a0 == 127) {
      return "loopback";
    }
    if (a0 == 169 && a1 == 254) {
      return "link-local / cloud metadata (169.254.0.0/16)";
    }
    if (a0 == 172 && (a1 & 0xF0) == 16) {
      return "private (172.16.0.0/12)";
    }
    if (a0 == 192 && a1 == 168) {
      return "private (192.168.0.0/16)";
    }
    if (a0 == 192 && a1 == 0 && (a2 == 0 || a2 == 2)) {
      return "special-purpose (192.0.0.0/24, 192.0.2.0/24)";
    }
    if (a0 == 198 && (a1 == 18 || a1 == 19)) {
      return "benchmarking (198.18.0.0/15)";
    }
    if (a0 == 198 && a1 == 51 && a2 == 100) {
      return "documentation (198.51.100.0/24)";
    }
    if (a0 == 203 && a1 == 0 && a2 == 113) {
      return "documentation (203.0.113.0/24)";
    }
    if (a0 >= 224 && a0 <= 239) {
      return "multicast";
    }
    if (a0 >= 240) {
      return "reserved / broadcast";
    }
    return null;
  }
}
