package io.sightline.gateway.auth;

import java.util.List;

/**
 * Where key records come from. The configured store reads {@code sightline.gateway.auth.keys};
 * another implementation (e.g. over the registry's etcd store) can be supplied as a bean.
 */
public interface ApiKeyStore {
  /** All known keys. Called per request, so implementations keep them in memory. */
  List<StoredApiKey> keys();
}
