package io.sightline.sim.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Run-time fault injection for one simulated worker, set through {@code POST /sim/faults} or the
 * Java API. All fields are optional; {@link #clear()} restores normal behaviour and releases hung
 * streams.
 *
 * <ul>
 *   <li>{@code crashAfterTokens}: the worker crashes when a stream reaches N tokens (connections
 *       dropped, HTTP and event sockets closed); {@code crashRestartMs} brings it back after a
 *       delay (fresh cache, event sequence from 0), else it stays down until restarted.
 *   <li>{@code hangAfterTokens}: a stream stops producing after N tokens, for {@code hangMs} (0 =
 *       until the faults are cleared or the worker restarts).
 *   <li>{@code errorRate} / {@code errorStatus}: that fraction of requests fails with the status
 *       (default 500) before any work.
 *   <li>{@code slowStartMs}: after the next (re)start the worker answers 503 for that long.
 *   <li>{@code dropEventFraction}: that fraction of KV event batches is not sent (sequence gaps).
 * </ul>
 */
public final class Faults {
  private volatile Integer crashAfterTokens;
  private volatile Long crashRestartMs;
  private volatile Integer hangAfterTokens;
  private volatile long hangMs;
  private volatile double errorRate;
  private volatile int errorStatus = 500;
  private volatile long slowStartMs;
  private volatile double dropEventFraction;
  private volatile CountDownLatch hangRelease = new CountDownLatch(1);

  public Integer crashAfterTokens() {
    return crashAfterTokens;
  }

  public Long crashRestartMs() {
    return crashRestartMs;
  }

  public Integer hangAfterTokens() {
    return hangAfterTokens;
  }

  public long hangMs() {
    return hangMs;
  }

  public double errorRate() {
    return errorRate;
  }

  public int errorStatus() {
    return errorStatus;
  }

  public long slowStartMs() {
    return slowStartMs;
  }

  public double dropEventFraction() {
    return dropEventFraction;
  }

  CountDownLatch hangRelease() {
    return hangRelease;
  }

  public Faults crashAfterTokens(Integer n, Long restartMs) {
    this.crashAfterTokens = n;
    this.crashRestartMs = restartMs;
    return this;
  }

  public Faults hangAfterTokens(Integer n, long ms) {
    this.hangAfterTokens = n;
    this.hangMs = Math.max(0, ms);
    return this;
  }

  public Faults errorRate(double rate, int status) {
    this.errorRate = Math.clamp(rate, 0.0, 1.0);
    this.errorStatus = status;
    return this;
  }

  public Faults slowStartMs(long ms) {
    this.slowStartMs = Math.max(0, ms);
    return this;
  }

  public Faults dropEventFraction(double f) {
    this.dropEventFraction = Math.clamp(f, 0.0, 1.0);
    return this;
  }

  /** True if this request should fail with {@link #errorStatus()}. */
  public boolean rollError() {
    double r = errorRate;
    return r > 0 && ThreadLocalRandom.current().nextDouble() < r;
  }

  /** Back to normal; hung streams resume. */
  public synchronized void clear() {
    crashAfterTokens = null;
    crashRestartMs = null;
    hangAfterTokens = null;
    hangMs = 0;
    errorRate = 0;
    errorStatus = 500;
    slowStartMs = 0;
    dropEventFraction = 0;
    releaseHangs();
  }

  /** Wakes every hung stream (used on clear and restart). */
  public synchronized void releaseHangs() {
    hangRelease.countDown();
    hangRelease = new CountDownLatch(1);
  }

  /**
   * Applies a JSON object (the {@code POST /sim/faults} body); unknown fields are rejected.
   *
   * @throws IllegalArgumentException with a message for the client
   */
  public synchronized void apply(JsonNode body) {
    if (body == null || !body.isObject()) {
      throw new IllegalArgumentException("faults must be a JSON object");
    }
    var names = body.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      JsonNode v = body.get(name);
      switch (name) {
        case "crashAfterTokens" -> crashAfterTokens = v.isNull() ? null : nonNegInt(name, v);
        case "crashRestartMs" -> crashRestartMs = v.isNull() ? null : (long) nonNegInt(name, v);
        case "hangAfterTokens" -> hangAfterTokens = v.isNull() ? null : nonNegInt(name, v);
        case "hangMs" -> hangMs = nonNegInt(name, v);
        case "errorRate" -> errorRate = fraction(name, v);
        case "errorStatus" -> {
          int s = nonNegInt(name, v);
          if (s < 500 || s > 599) {
            throw new IllegalArgumentException("errorStatus must be a 5xx status");
          }
          errorStatus = s;
        }
        case "slowStartMs" -> slowStartMs = nonNegInt(name, v);
        case "dropEventFraction" -> dropEventFraction = fraction(name, v);
        default -> throw new IllegalArgumentException("unknown fault '" + name + "'");
      }
    }
  }

  /** The current settings as JSON. */
  public ObjectNode toJson() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.putPOJO("crashAfterTokens", crashAfterTokens);
    o.putPOJO("crashRestartMs", crashRestartMs);
    o.putPOJO("hangAfterTokens", hangAfterTokens);
    o.put("hangMs", hangMs);
    o.put("errorRate", errorRate);
    o.put("errorStatus", errorStatus);
    o.put("slowStartMs", slowStartMs);
    o.put("dropEventFraction", dropEventFraction);
    return o;
  }

  private static int nonNegInt(String name, JsonNode v) {
    if (!v.canConvertToInt() || !v.isIntegralNumber() || v.intValue() < 0) {
      throw new IllegalArgumentException(name + " must be a non-negative integer");
    }
    return v.intValue();
  }

  private static double fraction(String name, JsonNode v) {
    if (!v.isNumber() || v.doubleValue() < 0 || v.doubleValue() > 1) {
      throw new IllegalArgumentException(name + " must be a number in [0, 1]");
    }
    return v.doubleValue();
  }
}
