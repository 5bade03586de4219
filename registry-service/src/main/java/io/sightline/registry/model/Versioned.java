package io.sightline.registry.model;

/**
 * A stored value with its modification revision: the store-wide revision of the write that produced
 * it (etcd's {@code mod_revision}). Writers pass it back to update only if nobody wrote in between
 * (optimistic concurrency; a stale revision gets 409 over REST).
 */
public record Versioned<T>(T value, long revision) {}
