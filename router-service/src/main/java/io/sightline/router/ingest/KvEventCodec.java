package io.sightline.router.ingest;

import io.sightline.routing.event.KvEvent;
import io.sightline.routing.event.StorageTier;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Binary form of an {@link EventBatchMessage} on the event plane (one NATS message per source
 * batch, so a batch is applied atomically and in order). Compact and self-contained:
 *
 * <pre>
 * u8 version(1) · utf worker · i32 rank · i64 sourceSeq · i32 count · count × event
 * event  = u8 kind(0 stored, 1 removed, 2 cleared) · utf worker · i32 rank · i64 seq · …
 * stored = u8 tier · i32 n · n × i64 hash · bool hasParent · i64 parent · i32 blockSize
 *          · i32 tokens · tokens × i32 · i32 mmBlocks · mmBlocks × (i32 k · k × i64) · opt-utf lora
 *          · opt-utf salt
 * removed = u8 tier · i32 n · n × i64 hash
 * </pre>
 *
 * Decoding bounds every length so a corrupt or hostile message cannot allocate unbounded memory;
 * failures are {@link IOException}s.
 */
public final class KvEventCodec {

  static final int VERSION = 1;
  private static final int MAX_ITEMS = 1 << 24;
  private static final StorageTier[] TIERS = StorageTier.values();

  private KvEventCodec() {}

  public static byte[] encode(EventBatchMessage message) {
    List<KvEvent> events = message.events();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeUTF(message.workerId());
      out.writeInt(message.dpRank());
      out.writeLong(message.sourceSequence());
      out.writeInt(events.size());
      for (KvEvent e : events) {
        switch (e) {
          case KvEvent.Stored s -> {
            head(out, 0, e);
            out.writeByte(s.tier().ordinal());
            longs(out, s.blockHashes());
            out.writeBoolean(s.parentHash() != null);
            out.writeLong(s.parentHash() == null ? 0 : s.parentHash());
            out.writeInt(s.blockSize());
            int[] tokens = s.tokenIds();
            out.writeInt(tokens.length);
            for (int t : tokens) {
              out.writeInt(t);
            }
            List<long[]> mm = s.blockMmHashes();
            out.writeInt(mm.size());
            for (int i = 0; i < mm.size(); i++) {
              longs(out, s.mmHashesOfBlock(i));
            }
            optional(out, s.loraName());
            optional(out, s.cacheSalt());
          }
          case KvEvent.Removed r -> {
            head(out, 1, e);
            out.writeByte(r.tier().ordinal());
            longs(out, r.blockHashes());
          }
          case KvEvent.Cleared c -> head(out, 2, e);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // cannot happen on a byte array
    }
    return bytes.toByteArray();
  }

  public static EventBatchMessage decode(byte[] data) throws IOException {
    if (data == null || data.length == 0) {
      throw new IOException("empty event message");
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new IOException("unsupported event message version " + version);
      }
      String batchWorker = in.readUTF();
      int batchRank = in.readInt();
      long sourceSeq = in.readLong();
      int n = bounded(in.readInt(), "events");
      List<KvEvent> out = new ArrayList<>(Math.min(n, 1024));
      for (int i = 0; i < n; i++) {
        int kind = in.readUnsignedByte();
        String worker = in.readUTF();
        int rank = in.readInt();
        long seq = in.readLong();
        try {
          out.add(
              switch (kind) {
                case 0 -> stored(in, worker, rank, seq);
                case 1 -> new KvEvent.Removed(worker, rank, seq, tier(in), readLongs(in));
                case 2 -> new KvEvent.Cleared(worker, rank, seq);
                default -> throw new IOException("unknown event kind " + kind);
              });
        } catch (IllegalArgumentException | NullPointerException e) {
          throw new IOException("invalid event in message: " + e.getMessage(), e);
        }
      }
      if (in.available() > 0) {
        throw new IOException(in.available() + " trailing bytes in event message");
      }
      try {
        return new EventBatchMessage(batchWorker, batchRank, sourceSeq, out);
      } catch (IllegalArgumentException | NullPointerException e) {
        throw new IOException("invalid event message: " + e.getMessage(), e);
      }
    }
  }

  private static KvEvent.Stored stored(DataInputStream in, String worker, int rank, long seq)
      throws IOException {
    StorageTier tier = tier(in);
    long[] hashes = readLongs(in);
    boolean hasParent = in.readBoolean();
    long parent = in.readLong();
    int blockSize = in.readInt();
    int[] tokens = new int[bounded(in.readInt(), "tokens")];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = in.readInt();
    }
    int mmBlocks = bounded(in.readInt(), "mm blocks");
    List<long[]> mm = new ArrayList<>(Math.min(mmBlocks, 1024));
    for (int i = 0; i < mmBlocks; i++) {
      mm.add(readLongs(in));
    }
    String lora = readOptional(in);
    String salt = readOptional(in);
    return new KvEvent.Stored(
        worker,
        rank,
        seq,
        tier,
        hashes,
        hasParent ? parent : null,
        tokens,
        blockSize,
        mm,
        lora,
        salt);
  }

  private static void head(DataOutputStream out, int kind, KvEvent e) throws IOException {
    out.writeByte(kind);
    out.writeUTF(e.workerId());
    out.writeInt(e.dpRank());
    out.writeLong(e.sequence());
  }

  private static void longs(DataOutputStream out, long[] values) throws IOException {
    out.writeInt(values.length);
    for (long v : values) {
      out.writeLong(v);
    }
  }

  private static long[] readLongs(DataInputStream in) throws IOException {
    long[] v = new long[bounded(in.readInt(), "hashes")];
    for (int i = 0; i < v.length; i++) {
      v[i] = in.readLong();
    }
    return v;
  }

  private static StorageTier tier(DataInputStream in) throws IOException {
    int t = in.readUnsignedByte();
    if (t >= TIERS.length) {
      throw new IOException("unknown storage tier " + t);
    }
    return TIERS[t];
  }

  private static void optional(DataOutputStream out, String s) throws IOException {
    out.writeBoolean(s != null);
    if (s != null) {
      out.writeUTF(s);
    }
  }

  private static String readOptional(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readUTF() : null;
  }

  private static int bounded(int n, String what) throws IOException {
    if (n < 0 || n > MAX_ITEMS) {
      throw new IOException(what + " count out of range: " + n);
    }
    return n;
  }
}
