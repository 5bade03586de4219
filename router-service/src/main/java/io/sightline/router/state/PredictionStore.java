package io.sightline.router.state;

import java.util.List;

/**
 * Shares routing predictions between replicas: every replica publishes its decisions' predicted
 * entries, and every replica applies the others' into its own index ({@code KvIndex.predict}), so
 * two replicas routing the same new prefix a few milliseconds apart both see where the first one
 * sent it.
 */
public interface PredictionStore extends AutoCloseable {

  /** Publishes this replica's prediction to the others. */
  void publish(Prediction prediction);

  /**
   * Predictions published by other replicas since the last call (own ones excluded), oldest first;
   * already expired ones may be included (the index drops them).
   */
  List<Prediction> pollOthers();

  @Override
  void close();
}
