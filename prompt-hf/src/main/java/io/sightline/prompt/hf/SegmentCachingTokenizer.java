package io.sightline.prompt.hf;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sightline.routing.prompt.PromptEncodingException;
import io.sightline.routing.prompt.TokenizerSpi;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A tokenizer that reuses the ids of text it has already seen: the prompt is cut at added tokens
 * ({@code <|im_start|>}, {@code <|im_end|>}, {@code <image>} …) and each text segment's ids come
 * from a bounded cache. In a growing conversation every earlier message is a cache hit, so only the
 * new turn reaches the native tokenizer – the "prefix cache of tokenized history" the 8k benchmark
 * called for (docs/prompt-encoding.md, benchmarks).
 *
 * <p>Why this is exact: Hugging Face {@code tokenizers} itself first splits the input on added
 * tokens (leftmost-longest), then normalises, pre-tokenizes and BPE-encodes every remaining piece
 * on its own, and ({@code add_special_tokens=false}) appends nothing. Encoding the pieces one by
 * one and concatenating is therefore the same computation. It stops being the same when an added
 * token strips neighbouring whitespace ({@code lstrip}/{@code rstrip}), must be a whole word
 * ({@code single_word}), is matched after normalisation ({@code normalized}), or when a {@code
 * Metaspace} pre-tokenizer prepends only to the first piece ({@code prepend_scheme: "first"});
 * {@link #create} refuses such tokenizers and the plain tokenizer is used. Equality with the plain
 * path is tested on the golden prompts and on randomised inputs ({@code
 * SegmentCachingTokenizerTest}).
 *
 * <p>Calls with {@code addSpecialTokens=true} (completions) bypass the cache. Thread-safe.
 */
public final class SegmentCachingTokenizer implements TokenizerSpi {

  private final TokenizerSpi base;
  private final AddedTokenMatcher addedTokenMatcher;
  private final Map<String, Integer> addedIds;
  private final Cache<String, int[]> cache;

  private SegmentCachingTokenizer(
      TokenizerSpi base, Map<String, Integer> addedIds, long maxCachedChars) {
    this.base = base;
    this.addedIds = Map.copyOf(addedIds);
    this.addedTokenMatcher = new AddedTokenMatcher(addedIds.keySet());
    this.cache =
        Caffeine.newBuilder()
            .maximumWeight(maxCachedChars)
            .weigher((String k, int[] v) -> k.length() + v.length)
            .build();
  }

  /**
   * Wraps {@code base} if the tokenizer in {@code tokenizerJson} splits on added tokens in a way
   * segment-wise encoding reproduces; empty otherwise (or when {@code maxCachedChars <= 0}).
   */
  public static Optional<SegmentCachingTokenizer> create(
      TokenizerSpi base, Path tokenizerJson, long maxCachedChars) throws IOException {
    if (maxCachedChars <= 0) {
      return Optional.empty();
    }
    JsonNode addedTokens = null;
    JsonNode preTokenizer = null;
    ObjectMapper mapper = new ObjectMapper();
    try (InputStream in = Files.newInputStream(tokenizerJson);
        JsonParser p = new JsonFactory().createParser(in)) {
      p.setCodec(mapper);
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return Optional.empty();
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        switch (field) {
          case "added_tokens" -> addedTokens = p.readValueAsTree();
          case "pre_tokenizer" -> preTokenizer = p.readValueAsTree();
          default -> p.skipChildren();
        }
      }
    }
    if (addedTokens == null || !addedTokens.isArray() || prependsOnlyFirst(preTokenizer)) {
      return Optional.empty();
    }
    Map<String, Integer> ids = new HashMap<>();
    for (JsonNode t : addedTokens) {
      if (t.path("lstrip").asBoolean(false)
          || t.path("rstrip").asBoolean(false)
          || t.path("single_word").asBoolean(false)
          || t.path("normalized").asBoolean(!t.path("special").asBoolean(false))) {
        return Optional.empty();
      }
      String content = t.path("content").asText("");
      if (content.isEmpty() || !t.path("id").canConvertToInt()) {
        return Optional.empty();
      }
      ids.put(content, t.get("id").intValue());
    }
    return Optional.of(new SegmentCachingTokenizer(base, ids, maxCachedChars));
  }

  private static boolean prependsOnlyFirst(JsonNode node) {
    if (node == null || node.isNull()) {
      return false;
    }
    if (node.isObject()
        && "Metaspace".equals(node.path("type").asText())
        && "first".equals(node.path("prepend_scheme").asText())) {
      return true;
    }
    for (JsonNode child : node) {
      if (prependsOnlyFirst(child)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public int[] encode(String text, boolean addSpecialTokens) throws PromptEncodingException {
    if (addSpecialTokens) {
      return base.encode(text, true);
    }
    int[] out = new int[Math.max(16, text.length() / 3)];
    int size = 0;
    int segmentStart = 0;
    int i = 0;
    int n = text.length();
    while (i < n) {
      String match = addedTokenMatcher.matchAt(text, i);
      if (match == null) {
        i++;
        continue;
      }
      if (i > segmentStart) {
        int[] ids = segment(text.substring(segmentStart, i));
        out = ensure(out, size + ids.length + 1);
        System.arraycopy(ids, 0, out, size, ids.length);
        size += ids.length;
      }
      out = ensure(out, size + 1);
      out[size++] = addedIds.get(match);
      i += match.length();
      segmentStart = i;
    }
    if (segmentStart < n) {
      int[] ids = segment(text.substring(segmentStart));
      out = ensure(out, size + ids.length);
      System.arraycopy(ids, 0, out, size, ids.length);
      size += ids.length;
    }
    return Arrays.copyOf(out, size);
  }

  private int[] segment(String piece) throws PromptEncodingException {
    int[] cached = cache.getIfPresent(piece);
    if (cached != null) {
      return cached;
    }
    int[] ids = base.encode(piece, false);
    cache.put(piece, ids);
    return ids;
  }

  private static int[] ensure(int[] a, int capacity) {
    return capacity <= a.length ? a : Arrays.copyOf(a, Math.max(capacity, a.length * 2));
  }

  /** Cached segments (for tests and metrics). */
  public long cachedSegments() {
    cache.cleanUp();
    return cache.estimatedSize();
  }

  @Override
  public String decode(int[] ids) throws PromptEncodingException {
    return base.decode(ids);
  }

  @Override
  public OptionalInt tokenId(String token) {
    Integer id = addedIds.get(token);
    return id != null ? OptionalInt.of(id) : base.tokenId(token);
  }
}
