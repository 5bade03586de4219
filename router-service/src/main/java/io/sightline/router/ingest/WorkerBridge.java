package io.sightline.router.ingest;

/**
 * Bridges one worker's engine event stream (all its data-parallel ranks) onto the event plane.
 * Exactly one replica runs the bridge of a worker at a time ({@link BridgeOwnership}).
 */
public interface WorkerBridge extends AutoCloseable {

  /** The worker id. */
  String workerId();

  /** A description of the source, to notice when the registry changes it. */
  String sourceKey();

  /** Starts bridging; resumes after what the plane already holds for the worker. */
  void start() throws EventPlaneException;

  @Override
  void close();
}
