package io.sightline.routing.multimodal.spec;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * The few Python numeric semantics the processors depend on, so that the Java ports agree with the
 * reference code bit for bit. Java doubles are IEEE-754 binary64 like Python floats, and {@code /},
 * {@code *}, {@link Math#sqrt} are correctly rounded in both, so evaluating the same expressions in
 * the same order gives the same values; what differs is rounding helpers.
 */
final class PyMath {
  private PyMath() {}

  /** Python 3 {@code round(x)}: nearest integer, ties to even (banker's rounding). */
  static long roundHalfEven(double x) {
    return (long) Math.rint(x);
  }

  /**
   * Python {@code round(x, ndigits)} followed by {@code int()}: round the exact binary value of
   * {@code x} to {@code ndigits} decimals, ties to even, then truncate toward zero.
   */
  static long roundToDigitsThenTruncate(double x, int ndigits) {
    // Fast path: rounding to ndigits can only change the integer part when x lies within half a
    // unit of the last digit below the next integer (x >= 0 here); elsewhere it is trunc(x).
    if (x >= 0 && x < 1e15) {
      long t = (long) x;
      if ((t + 1) - x > 2 * Math.pow(10, -ndigits)) {
        return t;
      }
    }
    return new BigDecimal(x).setScale(ndigits, RoundingMode.HALF_EVEN).longValue();
  }

  /** Python {@code int(x)} for a float: truncation toward zero. */
  static long trunc(double x) {
    return (long) x;
  }

  /** Python {@code a // b} for non-negative ints. */
  static long floorDiv(long a, long b) {
    return Math.floorDiv(a, b);
  }
}
