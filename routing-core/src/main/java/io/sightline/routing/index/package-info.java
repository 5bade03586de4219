/**
 * The KV index: which worker rank holds (or is predicted to hold) which block, keyed by local block
 * hashes. See {@link io.sightline.routing.index.KvIndex} and {@code docs/routing-core.md}.
 */
package io.sightline.routing.index;
