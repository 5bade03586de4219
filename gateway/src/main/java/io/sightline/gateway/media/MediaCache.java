package io.sightline.gateway.media;

import io.sightline.router.api.ResolvedImage;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * A shared second level for resolved URL images (mm_hash, width, height), so a fleet of gateways
 * fetches each image once. The local first level is a Caffeine cache in {@link MediaResolver}.
 */
public interface MediaCache {
  /** The cached entry, or empty. Errors are the caller's to ignore (a cache is optional). */
  Mono<ResolvedImage> get(String key);

  /** Stores an entry for {@code ttl}. */
  Mono<Void> put(String key, ResolvedImage image, Duration ttl);

  /** No shared level. */
  MediaCache NONE =
      new MediaCache() {
        @Override
        public Mono<ResolvedImage> get(String key) {
          return Mono.empty();
        }

        @Override
        public Mono<Void> put(String key, ResolvedImage image, Duration ttl) {
          return Mono.empty();
        }
      };
}
