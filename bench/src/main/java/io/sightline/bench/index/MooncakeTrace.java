package io.sightline.bench.index;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The Mooncake conversation-trace slice bundled in {@code mooncake/} (Apache-2.0, see
 * PROVENANCE.md): per request, its prefix-block ids ({@code hash_ids}, 512 tokens per block).
 */
public final class MooncakeTrace {
  public static final String RESOURCE = "/mooncake/conversation_trace_head2000.jsonl";

  private MooncakeTrace() {}

  /** Each request's {@code hash_ids}, in trace order. */
  public static List<int[]> load() {
    try (InputStream in = MooncakeTrace.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + RESOURCE);
      }
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      List<int[]> out = new ArrayList<>();
      String line;
      while ((line = r.readLine()) != null) {
        if (!line.isBlank()) {
          out.add(hashIds(line));
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // The trace lines are flat JSON objects; only the integer array "hash_ids" is needed.
  static int[] hashIds(String line) {
    int key = line.indexOf("\"hash_ids\"");
    int open = line.indexOf('[', key);
    int close = line.indexOf(']', open);
    if (key < 0 || open < 0 || close < 0) {
      throw new IllegalArgumentException("no hash_ids in: " + line);
    }
    String body = line.substring(open + 1, close).trim();
    if (body.isEmpty()) {
      return new int[0];
    }
    String[] parts = body.split(",");
    int[] ids = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      ids[i] = Integer.parseInt(parts[i].trim());
    }
    return ids;
  }
}
