package io.sightline.gateway.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How API keys are stored: HMAC-SHA-256 with a server-side pepper, or plain SHA-256 without one.
 * Keys are high-entropy random strings, so a fast hash is enough (no password KDF needed); the
 * pepper keeps a leaked list of hashes useless without the separate secret (LiteLLM's {@code
 * LITELLM_SALT_KEY} idea, ../shared/reference/ecosystem.md §5).
 *
 * <p>{@code java -cp gateway.jar io.sightline.gateway.auth.ApiKeyHasher <key> [pepper]} prints the
 * value to put in {@code sightline.gateway.auth.keys[].hash}.
 */
public final class ApiKeyHasher {
  private final byte[] pepper;

  public ApiKeyHasher(String pepper) {
    this.pepper = pepper == null ? new byte[0] : pepper.getBytes(StandardCharsets.UTF_8);
  }

  /** The 32-byte digest of {@code key}. */
  public byte[] digest(String key) {
    byte[] data = key.getBytes(StandardCharsets.UTF_8);
    try {
      if (pepper.length == 0) {
        return MessageDigest.getInstance("SHA-256").digest(data);
      }
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(pepper, "HmacSHA256"));
      return mac.doFinal(data);
    } catch (NoSuchAlgorithmException | java.security.InvalidKeyException e) {
      throw new IllegalStateException("SHA-256 is a mandatory JDK algorithm", e);
    }
  }

  /** Lowercase hex of {@link #digest}. */
  public String hex(String key) {
    return HexFormat.of().formatHex(digest(key));
  }

  public static void main(String[] args) {
    if (args.length < 1) {
      System.err.println("usage: ApiKeyHasher <key> [pepper]");
      System.exit(2);
    }
    System.out.println(new ApiKeyHasher(args.length > 1 ? args[1] : "").hex(args[0]));
  }
}
