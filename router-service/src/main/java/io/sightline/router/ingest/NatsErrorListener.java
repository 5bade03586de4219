package io.sightline.router.ingest;

import io.nats.client.Connection;
import io.nats.client.JetStreamSubscription;
import io.nats.client.impl.ErrorListenerLoggerImpl;

/**
 * jnats' logging error listener minus the routine {@code flowControlProcessed} notice, which the
 * ordered push consumer of {@link NatsKvEventBus} triggers every few hundred messages and which
 * would otherwise be logged at WARNING forever. Real errors are still logged.
 */
public final class NatsErrorListener extends ErrorListenerLoggerImpl {
  @Override
  public void flowControlProcessed(
      Connection conn, JetStreamSubscription sub, String subject, FlowControlSource source) {
    // routine: the ordered consumer answered a flow-control request
  }
}
