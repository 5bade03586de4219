package io.sightline.routing.index;

/** What {@link KvIndex#apply} did with an event. */
public enum ApplyOutcome {
  /** The event changed (or was a no-op for) the index as specified. */
  APPLIED,
  /** Skipped: its sequence number was already applied (replay overlap). */
  DUPLICATE,
  /** Skipped: a stored event's parent hash is unknown for this worker (counted). */
  UNKNOWN_PARENT,
  /** Skipped: its blocks could not be converted (block size or token count; counted). */
  REJECTED
}
