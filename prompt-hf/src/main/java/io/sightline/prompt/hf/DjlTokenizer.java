package io.sightline.prompt.hf;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.TokenizersLibrary;
import io.sightline.routing.prompt.PromptEncodingException;
import io.sightline.routing.prompt.TokenizerSpi;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link TokenizerSpi} over DJL's Hugging Face tokenizers binding (the Rust {@code tokenizers}
 * crate 0.21.4 that vLLM's Python tokenizer also wraps; ids verified identical on 30 strings × 3
 * models and 24 rendered prompts in ../shared/reference/tokenizers.md §2).
 *
 * <p>Pitfalls handled (same source):
 *
 * <ul>
 *   <li>DJL defaults to truncation at 512 tokens and padding: both are switched off, or an 8k
 *       prompt silently becomes 512 ids.
 *   <li>DJL calls an EC2 metadata address and may try to download a CUDA native on start-up unless
 *       {@code ai.djl.offline=true}: the property is set here before any DJL class loads (unless
 *       the operator set it explicitly), which also pins the bundled CPU native.
 *   <li>{@code encode()} copies tokens, offsets and masks across JNI; only ids are needed, so the
 *       raw native encode → ids → delete path is used (13–36% faster) unless the tokenizer config
 *       asks the Java wrapper to rewrite the input ({@code do_lower_case}, {@code strip_accents},
 *       {@code add_prefix_space}), in which case the wrapper's {@code encode} is used.
 * </ul>
 *
 * <p>The Rust tokenizer is {@code Sync}; one instance serves all threads. It lives as long as its
 * model (models are cached for the process lifetime), so it is not closed.
 */
public final class DjlTokenizer implements TokenizerSpi {

  static {
    ensureOffline();
  }

  private final HuggingFaceTokenizer tokenizer;
  private final boolean rawPath;
  private final Map<String, OptionalInt> tokenIds = new ConcurrentHashMap<>();

  private DjlTokenizer(HuggingFaceTokenizer tokenizer, boolean rawPath) {
    this.tokenizer = tokenizer;
    this.rawPath = rawPath;
  }

  /** Sets {@code ai.djl.offline=true} unless the operator already chose a value. */
  static void ensureOffline() {
    if (System.getProperty("ai.djl.offline") == null && System.getenv("DJL_OFFLINE") == null) {
      System.setProperty("ai.djl.offline", "true");
    }
  }

  /**
   * Loads {@code tokenizer.json} from a model directory.
   *
   * @param wrapperRewritesInput true if {@code tokenizer_config.json} sets options that DJL's Java
   *     wrapper applies to the text before tokenizing (then its full encode path is used)
   */
  static DjlTokenizer load(Path modelDir, boolean wrapperRewritesInput) throws IOException {
    HuggingFaceTokenizer t =
        HuggingFaceTokenizer.builder()
            .optTokenizerPath(modelDir)
            .optTruncation(false)
            .optPadding(false)
            .optAddSpecialTokens(false)
            .build();
    return new DjlTokenizer(t, !wrapperRewritesInput);
  }

  @Override
  public int[] encode(String text, boolean addSpecialTokens) throws PromptEncodingException {
    try {
      long[] ids;
      if (rawPath) {
        long encoding = TokenizersLibrary.LIB.encode(tokenizer.getHandle(), text, addSpecialTokens);
        try {
          ids = TokenizersLibrary.LIB.getTokenIds(encoding);
        } finally {
          TokenizersLibrary.LIB.deleteEncoding(encoding);
        }
      } else {
        ids = tokenizer.encode(text, addSpecialTokens, false).getIds();
      }
      int[] out = new int[ids.length];
      for (int i = 0; i < ids.length; i++) {
        out[i] = Math.toIntExact(ids[i]);
      }
      return out;
    } catch (RuntimeException e) {
      throw new PromptEncodingException(
          PromptEncodingException.Kind.TOKENIZER_ERROR, "tokenizer failed: " + e.getMessage(), e);
    }
  }

  @Override
  public String decode(int[] ids) throws PromptEncodingException {
    long[] l = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      l[i] = ids[i];
    }
    try {
      return tokenizer.decode(l, false);
    } catch (RuntimeException e) {
      throw new PromptEncodingException(
          PromptEncodingException.Kind.TOKENIZER_ERROR, "decode failed: " + e.getMessage(), e);
    }
  }

  /**
   * The id of a token: a token string that encodes (without special tokens) to exactly one id which
   * decodes back to the same string. Exact for added/special tokens such as {@code <|image_pad|>}
   * and {@code <image>}, which is what callers look up.
   */
  @Override
  public OptionalInt tokenId(String token) {
    return tokenIds.computeIfAbsent(
        token,
        t -> {
          try {
            int[] ids = encode(t, false);
            if (ids.length == 1 && decode(ids).equals(t)) {
              return OptionalInt.of(ids[0]);
            }
          } catch (PromptEncodingException e) {
            // not a token
          }
          return OptionalInt.empty();
        });
  }
}
