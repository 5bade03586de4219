package io.sightline.prompt.hf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds the tokenizer's added (special) tokens in text the way Hugging Face tokenizers split on
 * them before the model runs: at each position the longest added token that starts there wins
 * (leftmost-longest). Candidates are indexed by first character and kept longest first, so a
 * position costs one map lookup plus a few {@code startsWith}.
 */
final class AddedTokenMatcher {
  private final Map<Character, String[]> byFirstChar;

  AddedTokenMatcher(Set<String> addedTokens) {
    Map<Character, List<String>> byFirst = new HashMap<>();
    for (String token : addedTokens) {
      byFirst.computeIfAbsent(token.charAt(0), c -> new ArrayList<>()).add(token);
    }
    Map<Character, String[]> sorted = new HashMap<>();
    byFirst.forEach(
        (c, tokens) -> {
          String[] arr = tokens.toArray(String[]::new);
          Arrays.sort(arr, (a, b) -> Integer.compare(b.length(), a.length()));
          sorted.put(c, arr);
        });
    this.byFirstChar = Map.copyOf(sorted);
  }

  /** The added token starting at {@code text[i]}, longest first; null if none. */
  String matchAt(String text, int i) {
    String[] candidates = byFirstChar.get(text.charAt(i));
    if (candidates == null) {
      return null;
    }
    for (String c : candidates) {
      if (text.startsWith(c, i)) {
        return c;
      }
    }
    return null;
  }
}
