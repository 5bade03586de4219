package io.sightline.gateway.proxy;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a byte stream into server-sent events (a blank line ends an event; {@code \n\n}, {@code
 * \r\n\r\n} or {@code \r\r}), so the proxy can look at each event (usage, errors) while passing it
 * on as soon as it is complete. Only the bytes of one unfinished event are ever held.
 */
public final class SseFramer {
  private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
  // The last four bytes written, newest in b1, to spot the blank line without rescanning.
  private int b1 = -1;
  private int b2 = -1;
  private int b3 = -1;
  private int b4 = -1;

  /** Feeds a chunk; returns the events it completed (each with its terminating blank line). */
  public List<byte[]> feed(byte[] chunk) {
    List<byte[]> events = new ArrayList<>(2);
    for (byte b : chunk) {
      pending.write(b);
      b4 = b3;
      b3 = b2;
      b2 = b1;
      b1 = b;
      if ((b == '\n' || b == '\r') && endsEvent()) {
        events.add(pending.toByteArray());
        pending.reset();
        b1 = b2 = b3 = b4 = -1;
      }
    }
    return events;
  }

  /** What is left after the stream ended (an unterminated last event), or null. */
  public byte[] rest() {
    return pending.size() == 0 ? null : pending.toByteArray();
  }

  private boolean endsEvent() {
    return (b1 == '\n' && b2 == '\n')
        || (b1 == '\n' && b2 == '\r' && b3 == '\n' && b4 == '\r')
        || (b1 == '\r' && b2 == '\r');
  }

  /** The concatenated {@code data:} lines of an event, or null when it has none. */
  public static String data(byte[] event) {
    String text = new String(event, java.nio.charset.StandardCharsets.UTF_8);
    StringBuilder sb = null;
    for (String line : text.split("\r\n|\r|\n")) {
      if (line.startsWith("data:")) {
        String v = line.substring(5);
        if (v.startsWith(" ")) {
          v = v.substring(1);
        }
        if (sb == null) {
          sb = new StringBuilder(v);
        } else {
          sb.append('\n').append(v);
        }
      }
    }
    return sb == null ? null : sb.toString();
  }
}
