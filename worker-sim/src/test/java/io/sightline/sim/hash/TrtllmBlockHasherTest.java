package io.sightline.sim.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * TensorRT-LLM V1 block key vectors. TRT-LLM publishes no fixed vectors (its tests compare the C++
 * hasher with {@code tensorrt_llm/runtime/kv_cache_hash.py} on random input), so these were
 * computed with an arbitrary-precision Python transcription of that file's {@code
 * hash_v1_block_key} (plus the C++ mm-key loop of {@code blockKey.cpp}); they pin the Java port's
 * unsigned arithmetic against it.
 */
class TrtllmBlockHasherTest {
  private static final int[] B0 = IntStream.rangeClosed(1, 32).toArray();
  private static final int[] B1 = IntStream.rangeClosed(33, 64).toArray();

  @Test
  void chainedBlocks() {
    long b0 = TrtllmBlockHasher.hash(B0, 0, null, null, List.of());
    assertThat(Long.toUnsignedString(b0)).isEqualTo("17831341519058834317");
    long b1 = TrtllmBlockHasher.hash(B1, b0, null, null, List.of());
    assertThat(Long.toUnsignedString(b1)).isEqualTo("11197498242826443880");
    long partial = TrtllmBlockHasher.hash(new int[] {151644, 872, 198, 3838}, b1, null, null, null);
    assertThat(Long.toUnsignedString(partial)).isEqualTo("7153225891977826787");
  }

  @Test
  void loraSaltAndMultimodalKeys() {
    assertThat(Long.toUnsignedString(TrtllmBlockHasher.hash(B0, 0, 7L, null, List.of())))
        .isEqualTo("15744835200463573885");
    assertThat(
            Long.toUnsignedString(
                TrtllmBlockHasher.hash(B0, 0, null, 0x1234567890abcdefL, List.of())))
        .isEqualTo("15464860078264279777");
    long b0 = TrtllmBlockHasher.hash(B0, 0, null, null, List.of());
    byte[] digest = new byte[32];
    for (int i = 0; i < 32; i++) {
      digest[i] = (byte) i;
    }
    int[] image = new int[32];
    java.util.Arrays.fill(image, 151655);
    assertThat(
            Long.toUnsignedString(
                TrtllmBlockHasher.hash(
                    image, b0, null, null, List.of(new TrtllmBlockHasher.MmKey(digest, 64)))))
        .isEqualTo("8291186156413608019");
  }

  @Test
  void tokenIdsAreTreatedAsUnsigned32Bit() {
    assertThat(
            Long.toUnsignedString(
                TrtllmBlockHasher.hash(new int[] {300000, -1, 0}, 0, null, null, null)))
        .isEqualTo("17200078411104");
  }

  @Test
  void saltOnlyAffectsTheRoot() {
    long withSalt = TrtllmBlockHasher.hash(B1, 42, null, 99L, null);
    long without = TrtllmBlockHasher.hash(B1, 42, null, null, null);
    assertThat(withSalt).isEqualTo(without);
  }
}
