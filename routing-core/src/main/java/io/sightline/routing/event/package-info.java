/**
 * The normalised KV-event model ({@link io.sightline.routing.event.KvEvent}) that worker adapters
 * produce and the index consumes. See {@code docs/routing-core.md}.
 */
package io.sightline.routing.event;
