/**
 * Sightline's framework-free routing heart: media identity, processor specs, prompt encoding
 * interfaces, routing-token expansion, block hashing, the KV index and worker selection.
 */
package io.sightline.routing;
