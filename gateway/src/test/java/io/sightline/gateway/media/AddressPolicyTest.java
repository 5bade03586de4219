package io.sightline.gateway.media;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AddressPolicyTest {
  private final AddressPolicy strict = new AddressPolicy(false, List.of(), List.of(), Set.of());

  @ParameterizedTest
  @ValueSource(
      strings = {
        "127.0.0.1",
        "127.255.0.9",
        "10.0.0.1",
        "10.255.255.255",
        "172.16.0.1",
        "172.31.255.254",
        "192.168.1.1",
        "100.64.0.1",
        "100.100.100.200",
        "169.254.169.254",
        "0.0.0.0",
        "224.0.0.1",
        "255.255.255.255",
        "198.18.0.1",
        "::1",
        "::",
        "fe80::1",
        "fd00::1",
        "fd00:ec2::254",
        "fc00::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
        "64:ff9b::a00:1",
        "2002:a00:1::1",
        "2001:db8::1"
      })
  void internalAddressesAreRefused(String ip) throws Exception {
    InetAddress a = InetAddress.getByName(ip);
    assertThat(AddressPolicy.internalRange(a)).as(ip).isNotNull();
    assertThat(strict.checkAddress("example.com", a)).as(ip).isNotNull();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "8.8.8.8",
        "1.1.1.1",
        "172.32.0.1",
        "100.128.0.1",
        "2606:4700::1111",
        "::ffff:8.8.8.8"
      })
  void publicAddressesPass(String ip) throws Exception {
    assertThat(strict.checkAddress("example.com", InetAddress.getByName(ip))).as(ip).isNull();
  }

  @Test
  void optInAllowsInternalAddresses() throws Exception {
    AddressPolicy open = new AddressPolicy(true, List.of(), List.of(), Set.of());
    assertThat(open.checkAddress("x", InetAddress.getByName("10.1.2.3"))).isNull();
    AddressPolicy trusted = new AddressPolicy(false, List.of(), List.of(), Set.of("images.corp"));
    assertThat(trusted.checkAddress("images.corp", InetAddress.getByName("10.1.2.3"))).isNull();
    assertThat(trusted.checkAddress("other.corp", InetAddress.getByName("10.1.2.3"))).isNotNull();
  }

  @Test
  void internalNamesAndDomainListsAreChecked() {
    assertThat(strict.checkHost("localhost")).isNotNull();
    assertThat(strict.checkHost("metadata.google.internal")).isNotNull();
    assertThat(strict.checkHost("kubernetes.default.svc")).isNotNull();
    assertThat(strict.checkHost("example.com")).isNull();
    assertThat(strict.checkHost("")).isNotNull();

    AddressPolicy lists =
        new AddressPolicy(
            false, List.of("cdn.example.com"), List.of("bad.cdn.example.com"), Set.of());
    assertThat(lists.checkHost("cdn.example.com")).isNull();
    assertThat(lists.checkHost("img.cdn.example.com")).isNull();
    assertThat(lists.checkHost("bad.cdn.example.com")).contains("denylist");
    assertThat(lists.checkHost("evilcdn.example.com")).contains("allowlist");
    assertThat(lists.checkHost("example.org")).contains("allowlist");
  }

  @Test
  void literalsAreRecognisedWithoutDns() {
    assertThat(AddressPolicy.isLiteral("127.0.0.1")).isNotNull();
    assertThat(AddressPolicy.isLiteral("[::1]")).isNotNull();
    assertThat(AddressPolicy.isLiteral("example.com")).isNull();
  }
}
