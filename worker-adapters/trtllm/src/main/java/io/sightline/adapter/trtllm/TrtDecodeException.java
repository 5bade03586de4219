package io.sightline.adapter.trtllm;

/**
 * A TensorRT-LLM response (KV events, metrics) that cannot be decoded. Checked, so a bad poll of
 * one worker is counted by its caller instead of killing the poller.
 */
public final class TrtDecodeException extends Exception {
  private static final long serialVersionUID = 1L;

  public TrtDecodeException(String message) {
    super(message);
  }

  public TrtDecodeException(String message, Throwable cause) {
    super(message, cause);
  }
}
