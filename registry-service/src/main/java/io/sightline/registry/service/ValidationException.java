package io.sightline.registry.service;

import java.util.List;
import java.util.stream.Collectors;

/** A document failed validation (HTTP 400); nothing was written. */
public final class ValidationException extends RuntimeException {
  private final List<FieldError> errors;

  public ValidationException(List<FieldError> errors) {
    super(
        errors.stream().map(e -> e.path() + ": " + e.message()).collect(Collectors.joining("; ")));
    this.errors = List.copyOf(errors);
  }

  public ValidationException(String path, String message) {
    this(List.of(new FieldError(path, message)));
  }

  public List<FieldError> errors() {
    return errors;
  }
}
