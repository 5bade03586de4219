package io.sightline.routing.prompt;

/**
 * A request could not be encoded. Checked on purpose: every caller must decide between rejecting
 * the request ({@link Kind#INVALID_REQUEST}) and falling back to approximate routing (the other
 * kinds; see {@link FallbackPromptEncoder}).
 */
public final class PromptEncodingException extends Exception {

  /** Why encoding failed. */
  public enum Kind {
    /** The request body itself is malformed (missing messages, wrong types). Reject it. */
    INVALID_REQUEST,
    /** The chat template raised, failed to parse, or rendered with errors. Fall back. */
    TEMPLATE_ERROR,
    /** The tokenizer failed on the rendered text. Fall back. */
    TOKENIZER_ERROR
  }

  private final Kind kind;

  public PromptEncodingException(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  public PromptEncodingException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }

  /** True when approximate encoding of the same request is a sensible fallback. */
  public boolean fallbackAllowed() {
    return kind != Kind.INVALID_REQUEST;
  }
}
