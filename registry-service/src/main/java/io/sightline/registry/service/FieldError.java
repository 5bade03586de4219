package io.sightline.registry.service;

/**
 * One problem with a submitted document: {@code path} is the JSON path of the offending field in
 * the wire (snake_case) form, e.g. {@code media_decoder.max_bytes} or {@code aliases[2]}.
 */
public record FieldError(String path, String message) {}
