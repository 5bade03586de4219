package io.sightline.routing.expansion;

/**
 * How images enter the routing tokens (see {@code ../shared/reference/dynamo.md} §1.3).
 *
 * <ul>
 *   <li>{@link #GEN1}: each placeholder becomes N copies of the placeholder id, and the sorted
 *       mm_hashes of the images overlapping a block are appended to that block's hash input.
 *   <li>{@link #GEN2}: each placeholder becomes N copies of {@code 1_000_000 + (mm_hash &
 *       (2^30-1))}; blocks are hashed as plain tokens.
 *   <li>{@link #OFF}: the prompt ids are routed as they are (text-only routing).
 * </ul>
 */
public enum MmScheme {
  GEN1,
  GEN2,
  OFF;

  /** Parses {@code gen1}, {@code gen2} or {@code off} (any case). */
  public static java.util.Optional<MmScheme> parse(String s) {
    if (s == null) {
      return java.util.Optional.empty();
    }
    for (MmScheme m : values()) {
      if (m.name().equalsIgnoreCase(s.trim())) {
        return java.util.Optional.of(m);
      }
    }
    return java.util.Optional.empty();
  }
}
