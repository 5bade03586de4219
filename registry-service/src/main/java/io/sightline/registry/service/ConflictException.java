package io.sightline.registry.service;

import java.util.List;

/**
 * A well-formed write that contradicts the current fleet (HTTP 409): a worker whose block size,
 * dialect or served model disagrees with its card, a card change that would strand its workers, an
 * alias taken by another card, deleting a card that still has workers. Nothing was written.
 */
public final class ConflictException extends RuntimeException {
  private final String code;
  private final List<String> reasons;

  public ConflictException(String code, List<String> reasons) {
    super(String.join("; ", reasons));
    this.code = code;
    this.reasons = List.copyOf(reasons);
  }

  /** Machine-readable kind, e.g. {@code worker_card_mismatch}. */
  public String code() {
    return code;
  }

  public List<String> reasons() {
    return reasons;
  }
}
