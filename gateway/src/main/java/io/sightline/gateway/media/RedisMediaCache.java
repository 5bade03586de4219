package io.sightline.gateway.media;

import io.lettuce.core.SetArgs;
import io.lettuce.core.api.reactive.RedisReactiveCommands;
import io.sightline.router.api.ResolvedImage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import reactor.core.publisher.Mono;

/**
 * Media metadata in Redis: key {@code <prefix>media:<sha256(cache key)>} (URLs can be long and
 * carry signatures, so they are not stored), value {@code <mmHash hex>:<width>:<height>}, with the
 * configured TTL.
 */
public final class RedisMediaCache implements MediaCache {
  private final RedisReactiveCommands<String, String> redis;
  private final String prefix;

  public RedisMediaCache(RedisReactiveCommands<String, String> redis, String prefix) {
    this.redis = redis;
    this.prefix = prefix + "media:";
  }

  @Override
  public Mono<ResolvedImage> get(String key) {
    return redis.get(redisKey(key)).flatMap(v -> Mono.justOrEmpty(parse(v)));
  }

  @Override
  public Mono<Void> put(String key, ResolvedImage image, Duration ttl) {
    String value = Long.toHexString(image.mmHash()) + ":" + image.width() + ":" + image.height();
    return redis.set(redisKey(key), value, SetArgs.Builder.px(ttl.toMillis())).then();
  }

  static ResolvedImage parse(String v) {
    String[] parts = v.split(":");
    if (parts.length != 3) {
      return null;
    }
    try {
      return new ResolvedImage(
          Long.parseUnsignedLong(parts[0], 16),
          Integer.parseInt(parts[1]),
          Integer.parseInt(parts[2]));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private String redisKey(String key) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
      return prefix + HexFormat.of().formatHex(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
