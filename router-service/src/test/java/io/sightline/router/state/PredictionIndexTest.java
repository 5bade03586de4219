package io.sightline.router.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PredictionIndexTest {
  static final WorkerKey A = new WorkerKey("a", 0);
  static final WorkerKey B = new WorkerKey("b", 0);

  @Test
  void overlapIsTheConsecutivePredictedPrefixPerWorker() {
    PredictionIndex idx = new PredictionIndex(1000);
    idx.add(new Prediction("r", A, new long[] {1, 2, 3, 4}, 1_000));
    idx.add(new Prediction("r", B, new long[] {1, 2, 9}, 1_000));
    assertThat(idx.overlaps(new long[] {1, 2, 3, 5}, 500)).isEqualTo(Map.of(A, 3, B, 2));
    assertThat(idx.overlaps(new long[] {1, 2, 9, 4}, 500)).isEqualTo(Map.of(A, 2, B, 3));
    assertThat(idx.overlaps(new long[] {8, 2, 3}, 500))
        .as("an unpredicted first block means no overlap")
        .isEmpty();
  }

  @Test
  void aGapEndsAWorkersPrefix() {
    PredictionIndex idx = new PredictionIndex(1000);
    idx.add(new Prediction("r", A, new long[] {1, 3}, 1_000));
    idx.add(new Prediction("r", B, new long[] {1, 2, 3}, 1_000));
    assertThat(idx.overlaps(new long[] {1, 2, 3}, 0)).isEqualTo(Map.of(A, 1, B, 3));
  }

  @Test
  void expiredPredictionsDoNotCountAndArePurged() {
    PredictionIndex idx = new PredictionIndex(1000);
    idx.add(new Prediction("r", A, new long[] {1, 2}, 100));
    idx.add(new Prediction("r", B, new long[] {1}, 300));
    assertThat(idx.overlaps(new long[] {1, 2}, 200)).isEqualTo(Map.of(B, 1));
    assertThat(idx.entries()).isEqualTo(3);
    assertThat(idx.purgeExpired(200)).isEqualTo(2);
    assertThat(idx.entries()).isEqualTo(1);
  }

  @Test
  void laterPredictionExtendsExpiryAndDuplicatesDoNotGrowTheIndex() {
    PredictionIndex idx = new PredictionIndex(1000);
    idx.add(new Prediction("r", A, new long[] {1}, 100));
    idx.add(new Prediction("r2", A, new long[] {1}, 500));
    idx.add(new Prediction("r3", A, new long[] {1}, 50));
    assertThat(idx.entries()).isEqualTo(1);
    assertThat(idx.overlaps(new long[] {1}, 400)).isEqualTo(Map.of(A, 1));
  }

  @Test
  void boundedAndWorkerRemoval() {
    PredictionIndex idx = new PredictionIndex(2);
    assertThat(idx.add(new Prediction("r", A, new long[] {1, 2}, 100))).isTrue();
    assertThat(idx.add(new Prediction("r", B, new long[] {1}, 100))).isFalse();
    idx.removeWorker(A);
    assertThat(idx.entries()).isZero();
    assertThat(idx.overlaps(new long[] {1}, 0)).isEmpty();
  }
}
