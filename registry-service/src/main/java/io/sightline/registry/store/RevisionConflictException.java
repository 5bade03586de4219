package io.sightline.registry.store;

/** A conditional write found another revision than expected (HTTP 409). */
public final class RevisionConflictException extends RuntimeException {
  private final String key;
  private final long expected;
  private final long actual;

  public RevisionConflictException(String key, long expected, long actual) {
    super(message(key, expected, actual));
    this.key = key;
    this.expected = expected;
    this.actual = actual;
  }

  private static String message(String key, long expected, long actual) {
    if (expected == RegistryStore.MUST_NOT_EXIST) {
      return key + " already exists (revision " + actual + ")";
    }
    if (actual == 0) {
      return key + " does not exist (expected revision " + expected + ")";
    }
    return key + " is at revision " + actual + ", not " + expected + " (stale write refused)";
  }

  public String key() {
    return key;
  }

  public long expected() {
    return expected;
  }

  /** The entry's current revision, 0 when absent. */
  public long actual() {
    return actual;
  }
}
