package io.sightline.prompt.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sightline.routing.prompt.PromptEncodingException;
import io.sightline.routing.prompt.TokenizerSpi;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pure-Java byte-level BPE tokenizer for the {@code tokenizer.json} shape of Qwen2/2.5/3 (and
 * GPT-2-style models with an explicit split regex): NFC normaliser, {@code Split(regex, Isolated)}
 * + {@code ByteLevel(use_regex=false)} pre-tokenizer, BPE without dropout, byte fallback or word
 * affixes. It exists for speed – no JNI copies, and a cache of BPE results per pre-token – after
 * DJL measured ~22 ms for 8k Qwen tokens against a 10 ms target (docs/benchmarks.md). Design after
 * the prototype evaluated in ../shared/reference/tokenizers.md §2.2 (exact on 30/30 strings and 20k
 * fuzz strings against DJL on JDK 25; the Java regex must use Unicode tables of the same version as
 * the engine's Oniguruma – JDK 25 and tokenizers 0.21 both use Unicode 16).
 *
 * <p>Not the default: {@link HfModel} uses it only when {@code sightline.prompt.tokenizer=java} is
 * set and {@link #load} accepts the file; DJL (the Rust crate vLLM uses) stays the reference. It
 * encodes without special tokens only; {@code addSpecialTokens=true} is delegated.
 */
public final class ByteLevelBpeTokenizer implements TokenizerSpi {

  private static final char[] BYTE_TO_CHAR = byteToChar();

  private final Pattern split;
  private final Map<String, Integer> vocab;
  private final Map<Long, long[]> merges; // (left,right) -> {rank, merged id}
  private final int[] byteIds = new int[256];
  private final AddedTokenMatcher addedTokenMatcher;
  private final Map<String, Integer> addedIds;
  private final TokenizerSpi delegate;
  private final ConcurrentHashMap<String, int[]> pieceCache = new ConcurrentHashMap<>();

  private ByteLevelBpeTokenizer(
      Pattern split,
      Map<String, Integer> vocab,
      Map<Long, long[]> merges,
      Map<String, Integer> addedIds,
      TokenizerSpi delegate) {
    this.split = split;
    this.vocab = vocab;
    this.merges = merges;
    this.addedIds = Map.copyOf(addedIds);
    this.delegate = delegate;
    for (int b = 0; b < 256; b++) {
      Integer id = vocab.get(String.valueOf(BYTE_TO_CHAR[b]));
      byteIds[b] = id == null ? -1 : id;
    }
    this.addedTokenMatcher = new AddedTokenMatcher(addedIds.keySet());
  }

  /**
   * Loads {@code tokenizer.json} if it has the supported shape; empty otherwise.
   *
   * @param delegate used for {@code addSpecialTokens=true} and {@link #decode}
   */
  public static Optional<ByteLevelBpeTokenizer> load(Path tokenizerJson, TokenizerSpi delegate)
      throws IOException {
    JsonNode root = new ObjectMapper().readTree(tokenizerJson.toFile());
    JsonNode model = root.path("model");
    if (!"BPE".equals(model.path("type").asText())
        || model.path("byte_fallback").asBoolean(false)
        || !model.path("dropout").isNull() && !model.path("dropout").isMissingNode()
        || !model.path("continuing_subword_prefix").asText("").isEmpty()
        || !model.path("end_of_word_suffix").asText("").isEmpty()
        || model.path("ignore_merges").asBoolean(false)) {
      return Optional.empty();
    }
    JsonNode normalizer = root.path("normalizer");
    if (!normalizer.isNull()
        && !normalizer.isMissingNode()
        && !"NFC".equals(normalizer.path("type").asText())) {
      return Optional.empty();
    }
    JsonNode pre = root.path("pre_tokenizer");
    if (!"Sequence".equals(pre.path("type").asText()) || pre.path("pretokenizers").size() != 2) {
      return Optional.empty();
    }
    JsonNode splitNode = pre.path("pretokenizers").get(0);
    JsonNode byteLevel = pre.path("pretokenizers").get(1);
    if (!"Split".equals(splitNode.path("type").asText())
        || !"Isolated".equals(splitNode.path("behavior").asText())
        || splitNode.path("invert").asBoolean(false)
        || !splitNode.path("pattern").path("Regex").isTextual()
        || !"ByteLevel".equals(byteLevel.path("type").asText())
        || byteLevel.path("add_prefix_space").asBoolean(false)
        || byteLevel.path("use_regex").asBoolean(true)) {
      return Optional.empty();
    }
    Pattern split =
        Pattern.compile(
            splitNode.path("pattern").path("Regex").asText(),
            Pattern.UNICODE_CHARACTER_CLASS | Pattern.UNICODE_CASE);

    Map<String, Integer> vocab = new HashMap<>(model.path("vocab").size() * 2);
    Iterator<Map.Entry<String, JsonNode>> it = model.path("vocab").fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      vocab.put(e.getKey(), e.getValue().intValue());
    }
    Map<Long, long[]> merges = new HashMap<>(model.path("merges").size() * 2);
    int rank = 0;
    for (JsonNode m : model.path("merges")) {
      String left;
      String right;
      if (m.isArray()) {
        left = m.get(0).asText();
        right = m.get(1).asText();
      } else {
        String s = m.asText();
        int sp = s.indexOf(' ', 1);
        if (sp < 0) {
          return Optional.empty();
        }
        left = s.substring(0, sp);
        right = s.substring(sp + 1);
      }
      Integer l = vocab.get(left);
      Integer r = vocab.get(right);
      Integer merged = vocab.get(left + right);
      if (l == null || r == null || merged == null) {
        return Optional.empty();
      }
      merges.putIfAbsent(pair(l, r), new long[] {rank, merged});
      rank++;
    }
    Map<String, Integer> added = new HashMap<>();
    for (JsonNode t : root.path("added_tokens")) {
      if (t.path("lstrip").asBoolean(false)
          || t.path("rstrip").asBoolean(false)
          || t.path("single_word").asBoolean(false)
          || t.path("normalized").asBoolean(!t.path("special").asBoolean(false))) {
        return Optional.empty();
      }
      added.put(t.path("content").asText(), t.path("id").intValue());
    }
    ByteLevelBpeTokenizer tok = new ByteLevelBpeTokenizer(split, vocab, merges, added, delegate);
    for (int id : tok.byteIds) {
      if (id < 0) {
        return Optional.empty();
      }
    }
    return Optional.of(tok);
  }

  private static long pair(int left, int right) {
    return ((long) left << 32) | (right & 0xffffffffL);
  }

  @Override
  public int[] encode(String text, boolean addSpecialTokens) throws PromptEncodingException {
    if (addSpecialTokens) {
      return delegate.encode(text, true);
    }
    IntList out = new IntList(Math.max(16, text.length() / 3));
    int segmentStart = 0;
    int i = 0;
    int n = text.length();
    while (i < n) {
      String match = addedTokenMatcher.matchAt(text, i);
      if (match == null) {
        i++;
        continue;
      }
      encodeSegment(text.substring(segmentStart, i), out);
      out.add(addedIds.get(match));
      i += match.length();
      segmentStart = i;
    }
    encodeSegment(text.substring(segmentStart), out);
    return out.toArray();
  }

  private void encodeSegment(String segment, IntList out) {
    if (segment.isEmpty()) {
      return;
    }
    String s =
        Normalizer.isNormalized(segment, Normalizer.Form.NFC)
            ? segment
            : Normalizer.normalize(segment, Normalizer.Form.NFC);
    Matcher m = split.matcher(s);
    int last = 0;
    while (m.find()) {
      if (m.start() > last) {
        encodePiece(s.substring(last, m.start()), out);
      }
      if (m.end() > m.start()) {
        encodePiece(s.substring(m.start(), m.end()), out);
      }
      last = m.end();
    }
    if (last < s.length()) {
      encodePiece(s.substring(last), out);
    }
  }

  private void encodePiece(String piece, IntList out) {
    int[] cached = pieceCache.get(piece);
    if (cached == null) {
      cached = bpe(piece.getBytes(StandardCharsets.UTF_8));
      if (pieceCache.size() > 200_000) {
        pieceCache.clear();
      }
      pieceCache.put(piece, cached);
    }
    out.addAll(cached);
  }

  /** Classic BPE: repeatedly merge the lowest-ranked adjacent pair (leftmost on ties). */
  private int[] bpe(byte[] bytes) {
    int[] syms = new int[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      syms[i] = byteIds[bytes[i] & 0xff];
    }
    int len = syms.length;
    while (len > 1) {
      long bestRank = Long.MAX_VALUE;
      int bestAt = -1;
      int bestId = -1;
      for (int i = 0; i + 1 < len; i++) {
        long[] merge = merges.get(pair(syms[i], syms[i + 1]));
        if (merge != null && merge[0] < bestRank) {
          bestRank = merge[0];
          bestAt = i;
          bestId = (int) merge[1];
        }
      }
      if (bestAt < 0) {
        break;
      }
      syms[bestAt] = bestId;
      System.arraycopy(syms, bestAt + 2, syms, bestAt + 1, len - bestAt - 2);
      len--;
    }
    return Arrays.copyOf(syms, len);
  }

  /** Drops the per-pre-token BPE cache (benchmarks measure both states). */
  public void clearCache() {
    pieceCache.clear();
  }

  @Override
  public String decode(int[] ids) throws PromptEncodingException {
    return delegate.decode(ids);
  }

  @Override
  public OptionalInt tokenId(String token) {
    Integer id = addedIds.get(token);
    if (id != null) {
      return OptionalInt.of(id);
    }
    return delegate.tokenId(token);
  }

  /** GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to U+0100 onwards. */
  private static char[] byteToChar() {
    char[] map = new char[256];
    int next = 0;
    for (int b = 0; b < 256; b++) {
      boolean printable =
          (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      map[b] = printable ? (char) b : (char) (256 + next++);
    }
    return map;
  }

  private static final class IntList {
    private int[] a;
    private int size;

    IntList(int capacity) {
      a = new int[capacity];
    }

    void add(int v) {
      if (size == a.length) {
        a = Arrays.copyOf(a, a.length * 2);
      }
      a[size++] = v;
    }

    void addAll(int[] vs) {
      if (size + vs.length > a.length) {
        a = Arrays.copyOf(a, Math.max(a.length * 2, size + vs.length));
      }
      System.arraycopy(vs, 0, a, size, vs.length);
      size += vs.length;
    }

    int[] toArray() {
      return Arrays.copyOf(a, size);
    }
  }
}
