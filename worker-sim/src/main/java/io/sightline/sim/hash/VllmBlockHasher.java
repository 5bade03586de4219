package io.sightline.sim.hash;

import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import com.fasterxml.jackson.dataformat.cbor.CBORGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.List;

/**
 * vLLM's prefix-cache block hash with {@code --prefix-caching-hash-algo sha256_cbor} (vLLM {@code
 * vllm/v1/core/kv_cache_utils.py} and {@code vllm/utils/hashing.py}; notes in {@code
 * ../shared/reference/llmd.md} §2). This is the <em>engine's</em> hash; Sightline's router hashes
 * differently (Dynamo XXH3) and treats these values as opaque handles, exactly as it must with a
 * real vLLM.
 *
 * <pre>
 * NONE_HASH = sha256(cbor(PYTHONHASHSEED string))      (32 random bytes when unset)
 * H[i]      = sha256(cbor([parent_bytes, [tokens...], extra_keys | None]))
 * event int = unsigned 64-bit value of the last 8 digest bytes (big-endian)
 * </pre>
 *
 * <p>CBOR comes from Jackson's {@link CBORGenerator}, which produces exactly cbor2's bytes for
 * these shapes: definite-length arrays, minimal-length integers (positive and negative), definite
 * byte and text strings, {@code null} as {@code 0xF6}; no maps are involved, so canonical key order
 * does not arise. The published vectors pin this ({@code VllmBlockHasherTest}). Text longer than
 * {@link #MAX_TEXT_CHARS} is rejected because Jackson would switch to chunked (indefinite-length)
 * strings, which cbor2 never writes.
 */
public final class VllmBlockHasher {
  /** Longest extra-key string accepted (far above real LoRA names, uuids and salts). */
  public static final int MAX_TEXT_CHARS = 2048;

  private static final CBORFactory CBOR = new CBORFactory();

  private final byte[] noneHash;

  private VllmBlockHasher(byte[] noneHash) {
    this.noneHash = noneHash;
  }

  /**
   * A hasher with vLLM's root derived from {@code PYTHONHASHSEED}; {@code null} means unset, in
   * which case (as in vLLM) the root is 32 random bytes and hashes differ per engine lifetime.
   */
  public static VllmBlockHasher withSeed(String pythonHashSeed) {
    if (pythonHashSeed == null) {
      byte[] random = new byte[32];
      new SecureRandom().nextBytes(random);
      return new VllmBlockHasher(random);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(pythonHashSeed.length() + 4);
    try (CBORGenerator g = CBOR.createGenerator(out)) {
      writeText(g, pythonHashSeed);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new VllmBlockHasher(sha256(out.toByteArray()));
  }

  /** The root ({@code NONE_HASH}) digest; parent of block 0. */
  public byte[] noneHash() {
    return noneHash.clone();
  }

  /**
   * Hash of one full block.
   *
   * @param parent the previous block's full digest, or {@code null} for block 0 (NONE_HASH is used)
   * @param tokens the block's token ids (exactly block_size of them in vLLM; not checked here)
   * @param extraKeys the block's extra keys, or {@code null}/empty for none
   * @return the 32-byte SHA-256 digest
   */
  public byte[] hashBlock(byte[] parent, int[] tokens, List<ExtraKey> extraKeys) {
    return sha256(cborInput(parent == null ? noneHash : parent, tokens, extraKeys));
  }

  /** The CBOR bytes vLLM hashes for a block (exposed for the byte-level test vector). */
  public static byte[] cborInput(byte[] parent, int[] tokens, List<ExtraKey> extraKeys) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + tokens.length * 5);
    try (CBORGenerator g = CBOR.createGenerator(out)) {
      g.writeStartArray(null, 3);
      g.writeBinary(parent);
      g.writeStartArray(null, tokens.length);
      for (int t : tokens) {
        g.writeNumber(t);
      }
      g.writeEndArray();
      if (extraKeys == null || extraKeys.isEmpty()) {
        g.writeNull();
      } else {
        g.writeStartArray(null, extraKeys.size());
        for (ExtraKey key : extraKeys) {
          switch (key) {
            case ExtraKey.Text t -> writeText(g, t.value());
            case ExtraKey.Mm m -> {
              g.writeStartArray(null, 2);
              writeText(g, m.identifier());
              g.writeNumber(m.offset());
              g.writeEndArray();
            }
          }
        }
        g.writeEndArray();
      }
      g.writeEndArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** vLLM's event integer: the last 8 digest bytes as an unsigned big-endian value. */
  public static long toEventHash(byte[] digest) {
    return ByteBuffer.wrap(digest, digest.length - 8, 8).getLong();
  }

  private static void writeText(CBORGenerator g, String text) throws IOException {
    if (text.length() > MAX_TEXT_CHARS) {
      throw new IllegalArgumentException(
          "extra key longer than " + MAX_TEXT_CHARS + " characters cannot be hashed canonically");
    }
    // Encode ourselves so the length prefix is always the definite UTF-8 byte length.
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    g.writeUTF8String(utf8, 0, utf8.length);
  }

  static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is mandatory in every JDK", e);
    }
  }
}
