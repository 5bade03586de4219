package io.sightline.router.ingest;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The distributed event plane on NATS JetStream (jnats): one subject per worker rank, {@code
 * <prefix>.<worker>.<rank>}, all captured by one stream ({@code <prefix>.>}). Every router replica
 * consumes the whole stream with an ordered push consumer, so replicas apply the same messages in
 * the same order, and a replica that starts late (or warms from a snapshot taken at stream sequence
 * S) replays from S + 1 ({@code DeliverPolicy.ByStartSequence}). {@link #last} reads the newest
 * message of a worker rank's subject ({@code getLastMessage}), which is how a new bridge owner
 * resumes after the previous one died.
 *
 * <p>Worker ids are escaped into one subject token: characters other than {@code [A-Za-z0-9-]} —
 * including NATS's separators and wildcards {@code . * >} and whitespace — become {@code _hh}
 * (UTF-8 bytes in hex). The stream is created when missing, with the configured retention (age and
 * size limits; Dynamo's deprecated durable mode used the same "stream per component" idea, {@code
 * ../shared/reference/dynamo.md} §2.1, §3).
 */
public final class NatsKvEventBus implements KvEventBus {

  private static final Logger LOG = Logger.getLogger(NatsKvEventBus.class.getName());

  /**
   * Stream settings.
   *
   * @param streamName JetStream stream name
   * @param subjectPrefix subject prefix (no trailing dot)
   * @param maxAge how long messages are kept
   * @param maxBytes stream size limit (-1 = unlimited)
   * @param memoryStorage memory instead of file storage (tests)
   */
  public record Settings(
      String streamName,
      String subjectPrefix,
      Duration maxAge,
      long maxBytes,
      boolean memoryStorage) {
    public Settings {
      Objects.requireNonNull(streamName, "streamName");
      Objects.requireNonNull(subjectPrefix, "subjectPrefix");
      maxAge = maxAge == null ? Duration.ofHours(6) : maxAge;
    }

    public static Settings defaults() {
      return new Settings("SIGHTLINE_KV_EVENTS", "sightline.kv", Duration.ofHours(6), -1, false);
    }
  }

  private final Connection connection;
  private final Settings settings;
  private final JetStream jetStream;
  private final JetStreamManagement management;
  private final AtomicLong badMessages = new AtomicLong();

  /** Uses (does not own) an open connection; creates the stream if missing. */
  public NatsKvEventBus(Connection connection, Settings settings) throws EventPlaneException {
    this.connection = Objects.requireNonNull(connection, "connection");
    this.settings = Objects.requireNonNull(settings, "settings");
    try {
      this.jetStream = connection.jetStream();
      this.management = connection.jetStreamManagement();
      ensureStream();
    } catch (IOException | JetStreamApiException e) {
      throw new EventPlaneException("cannot set up JetStream stream " + settings.streamName(), e);
    }
  }

  private void ensureStream() throws IOException, JetStreamApiException {
    try {
      management.getStreamInfo(settings.streamName());
      return;
    } catch (JetStreamApiException e) {
      if (e.getErrorCode() != 404) {
        throw e;
      }
    }
    StreamConfiguration.Builder config =
        StreamConfiguration.builder()
            .name(settings.streamName())
            .subjects(settings.subjectPrefix() + ".>")
            .storageType(settings.memoryStorage() ? StorageType.Memory : StorageType.File)
            .maxAge(settings.maxAge());
    if (settings.maxBytes() > 0) {
      config.maxBytes(settings.maxBytes());
    }
    try {
      management.addStream(config.build());
    } catch (JetStreamApiException e) {
      // another replica created it first
      management.getStreamInfo(settings.streamName());
    }
  }

  /** The subject of a worker rank. */
  public String subject(String workerId, int dpRank) {
    return settings.subjectPrefix() + "." + token(workerId) + "." + dpRank;
  }

  static String token(String workerId) {
    StringBuilder sb = new StringBuilder(workerId.length() + 8);
    for (byte b : workerId.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xFF);
      boolean plain =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
      if (plain) {
        sb.append(c);
      } else {
        sb.append('_')
            .append(Character.forDigit((b >> 4) & 0xF, 16))
            .append(Character.forDigit(b & 0xF, 16));
      }
    }
    return sb.toString();
  }

  @Override
  public void publish(EventBatchMessage message) throws EventPlaneException {
    try {
      jetStream.publish(
          subject(message.workerId(), message.dpRank()), KvEventCodec.encode(message));
    } catch (IOException | JetStreamApiException e) {
      throw new EventPlaneException("publish to JetStream failed: " + e.getMessage(), e);
    }
  }

  @Override
  public Optional<EventBatchMessage> last(String workerId, int dpRank) throws EventPlaneException {
    MessageInfo info;
    try {
      info = management.getLastMessage(settings.streamName(), subject(workerId, dpRank));
    } catch (JetStreamApiException e) {
      if (e.getErrorCode() == 404) {
        return Optional.empty();
      }
      throw new EventPlaneException("reading the last message failed: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new EventPlaneException("reading the last message failed: " + e.getMessage(), e);
    }
    try {
      return Optional.of(KvEventCodec.decode(info.getData()));
    } catch (IOException e) {
      throw new EventPlaneException("last message of " + workerId + " undecodable", e);
    }
  }

  @Override
  public AutoCloseable subscribe(long afterStreamSequence, Consumer consumer)
      throws EventPlaneException {
    Dispatcher dispatcher = connection.createDispatcher();
    ConsumerConfiguration.Builder cc = ConsumerConfiguration.builder();
    if (afterStreamSequence > 0) {
      cc.deliverPolicy(DeliverPolicy.ByStartSequence).startSequence(afterStreamSequence + 1);
    } else {
      cc.deliverPolicy(DeliverPolicy.All);
    }
    PushSubscribeOptions options =
        PushSubscribeOptions.builder().stream(settings.streamName())
            .ordered(true)
            .configuration(cc.build())
            .build();
    JetStreamSubscription sub;
    try {
      sub =
          jetStream.subscribe(
              settings.subjectPrefix() + ".>",
              dispatcher,
              msg -> deliver(msg, consumer),
              false,
              options);
    } catch (IOException | JetStreamApiException e) {
      connection.closeDispatcher(dispatcher);
      throw new EventPlaneException("JetStream subscribe failed: " + e.getMessage(), e);
    }
    return () -> {
      try {
        sub.unsubscribe();
      } catch (IllegalStateException e) {
        // already closed with the connection
      }
      connection.closeDispatcher(dispatcher);
    };
  }

  private void deliver(Message msg, Consumer consumer) {
    long seq = msg.isJetStream() ? msg.metaData().streamSequence() : -1;
    EventBatchMessage decoded;
    try {
      decoded = KvEventCodec.decode(msg.getData());
    } catch (IOException e) {
      badMessages.incrementAndGet();
      LOG.log(
          Level.WARNING,
          "undecodable event message at stream seq {0}: {1}",
          new Object[] {seq, e.getMessage()});
      return;
    }
    try {
      consumer.accept(decoded, seq);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "event consumer failed at stream seq " + seq, e);
    }
  }

  /** Messages that could not be decoded and were skipped. */
  public long badMessages() {
    return badMessages.get();
  }

  /** Deletes the stream (tests and tooling). */
  public void deleteStream() throws EventPlaneException {
    try {
      management.deleteStream(settings.streamName());
    } catch (IOException | JetStreamApiException e) {
      throw new EventPlaneException("delete stream failed", e);
    }
  }

  @Override
  public boolean durable() {
    return true;
  }

  @Override
  public void close() {
    // the connection belongs to the caller
  }

  static void drainQuietly(Connection c) {
    try {
      c.drain(Duration.ofSeconds(2)).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
      LOG.log(Level.FINE, "drain failed", e);
    }
  }
}
