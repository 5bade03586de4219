package io.sightline.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sightline.gateway.config.GatewayProperties;
import io.sightline.gateway.error.OpenAiException;
import java.util.List;
import org.junit.jupiter.api.Test;

class ApiKeyAuthenticatorTest {
  private static GatewayProperties.Key key(
      String name, String hash, List<String> models, long rpm) {
    GatewayProperties.Key k = new GatewayProperties.Key();
    k.setName(name);
    k.setHash(hash);
    k.setModels(models);
    k.setRequestsPerMinute(rpm);
    return k;
  }

  @Test
  void hashesAreShaOrPepperedHmac() {
    // sha256("sk-test"), computed independently: echo -n sk-test | sha256sum
    assertThat(new ApiKeyHasher("").hex("sk-test"))
        .isEqualTo("f3abf2a6cc4f00987743db5f544ba345b4899ae31f326d8ee9c4816de153c9e0");
    assertThat(new ApiKeyHasher("pepper").hex("sk-test"))
        .isNotEqualTo(new ApiKeyHasher("").hex("sk-test"))
        .hasSize(64);
  }

  @Test
  void authenticatesByHashAndChecksAllowlist() {
    ApiKeyHasher hasher = new ApiKeyHasher("s3cret");
    ApiKeyAuthenticator auth =
        new ApiKeyAuthenticator(
            true,
            hasher,
            new ConfiguredApiKeyStore(
                List.of(
                    key("alice", hasher.hex("sk-alice"), List.of("m1"), 5),
                    key("bob", hasher.hex("sk-bob"), List.of(), 0))),
            100,
            1000);

    ApiKeyPrincipal alice = auth.authenticate("Bearer sk-alice", null);
    assertThat(alice.name()).isEqualTo("alice");
    assertThat(alice.requestsPerMinute()).isEqualTo(5);
    assertThat(alice.tokensPerMinute()).isEqualTo(1000);
    auth.checkModel(alice, "m1");
    assertThatThrownBy(() -> auth.checkModel(alice, "m2"))
        .isInstanceOfSatisfying(OpenAiException.class, e -> assertThat(e.status()).isEqualTo(403));

    ApiKeyPrincipal bob = auth.authenticate(null, "sk-bob");
    assertThat(bob.name()).isEqualTo("bob");
    assertThat(bob.requestsPerMinute()).isEqualTo(100);
    auth.checkModel(bob, "anything");

    for (String bad : new String[] {null, "", "Bearer ", "Bearer sk-carol", "Basic sk-alice"}) {
      assertThatThrownBy(() -> auth.authenticate(bad, null))
          .as(String.valueOf(bad))
          .isInstanceOfSatisfying(
              OpenAiException.class, e -> assertThat(e.status()).isEqualTo(401));
    }
  }

  @Test
  void disabledAuthIsAnonymous() {
    ApiKeyAuthenticator auth = new ApiKeyAuthenticator(false, new ApiKeyHasher(""), List::of, 7, 0);
    assertThat(auth.authenticate(null, null).name()).isEqualTo("anonymous");
    assertThat(auth.authenticate(null, null).requestsPerMinute()).isEqualTo(7);
  }

  @Test
  void badConfiguredHashesFailFast() {
    assertThatThrownBy(() -> new ConfiguredApiKeyStore(List.of(key("x", "zz", List.of(), 0))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ConfiguredApiKeyStore(List.of(key("x", "abcd", List.of(), 0))))
        .hasMessageContaining("64 hex");
  }
}
