package io.sightline.adapter.vllm;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One ZMQ multipart KV-event message from a vLLM publisher: {@code [topic, seq, payload]} ({@code
 * ../shared/reference/llmd.md} §1 "Message").
 *
 * <p>The sequence frame is 8 bytes big-endian (unsigned, from 0 per publisher lifetime). With the
 * newer {@code snapshot_endpoint} option it widens to 24 bytes: the 8-byte sequence followed by a
 * 16-byte publisher-lifetime id; that id is kept so a restarted publisher (sequence back at 0) can
 * be told apart from a duplicate.
 *
 * @param topic the topic frame as UTF-8 (may be empty)
 * @param sequence the batch sequence number
 * @param publisherId the 16-byte publisher-lifetime id, or {@code null} for 8-byte sequences
 * @param payload the msgpack batch, undecoded
 */
public record VllmKvMessage(String topic, long sequence, byte[] publisherId, byte[] payload) {

  /** The replay socket's end marker sequence (8 bytes of 0xFF, i.e. -1). */
  public static final long END_OF_REPLAY = -1L;

  /** Parses the three frames of a published message. */
  public static VllmKvMessage fromFrames(List<byte[]> frames) throws EventDecodeException {
    if (frames == null || frames.size() != 3) {
      throw new EventDecodeException(
          "expected 3 frames [topic, seq, payload], got " + (frames == null ? 0 : frames.size()));
    }
    byte[] seqFrame = frames.get(1);
    long seq = parseSequence(seqFrame);
    byte[] publisherId = null;
    if (seqFrame.length == 24) {
      publisherId = java.util.Arrays.copyOfRange(seqFrame, 8, 24);
    }
    return new VllmKvMessage(
        new String(frames.get(0), StandardCharsets.UTF_8), seq, publisherId, frames.get(2));
  }

  /** Reads an 8-byte (or 24-byte, sequence first) big-endian sequence frame. */
  public static long parseSequence(byte[] frame) throws EventDecodeException {
    if (frame == null || (frame.length != 8 && frame.length != 24)) {
      throw new EventDecodeException(
          "sequence frame must be 8 or 24 bytes, got " + (frame == null ? 0 : frame.length));
    }
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (frame[i] & 0xFF);
    }
    return v;
  }

  /** Encodes a sequence number as the 8-byte big-endian frame vLLM uses. */
  public static byte[] sequenceFrame(long seq) {
    byte[] out = new byte[8];
    for (int i = 7; i >= 0; i--) {
      out[i] = (byte) seq;
      seq >>>= 8;
    }
    return out;
  }
}
