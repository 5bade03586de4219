package io.sightline.router.ingest;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Bridge ownership by etcd leases (jetcd): each replica holds one lease, kept alive in the
 * background, and owns worker {@code w} while the key {@code <prefix><w>} exists with its node id
 * <em>under its current lease</em>. A claim is a transaction "create the key if it has never been
 * created (create revision 0), else read it" — first writer wins. When a replica dies its lease
 * expires after the TTL, etcd deletes its keys, and the next claim of another replica takes the
 * workers over; a graceful {@link #close()} revokes the lease so hand-over is immediate. If the
 * keep-alive stream fails, the lease is treated as lost: nothing is owned until a new lease is
 * granted and keys are claimed again. Keys of workers that left the registry are deleted.
 */
public final class EtcdBridgeOwnership implements BridgeOwnership {

  private static final Logger LOG = Logger.getLogger(EtcdBridgeOwnership.class.getName());

  private final Client client;
  private final boolean ownsClient;
  private final String prefix;
  private final String nodeId;
  private final Duration leaseTtl;
  private final Duration callTimeout;
  private final KV kv;
  private volatile long leaseId;
  private volatile boolean leaseLost = true;
  private CloseableClient keepAlive;

  public EtcdBridgeOwnership(
      Client client, boolean ownsClient, String keyPrefix, String nodeId, Duration leaseTtl) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.prefix = keyPrefix.endsWith("/") ? keyPrefix : keyPrefix + "/";
    this.nodeId = nodeId;
    this.leaseTtl =
        leaseTtl.compareTo(Duration.ofSeconds(2)) < 0 ? Duration.ofSeconds(2) : leaseTtl;
    this.callTimeout = Duration.ofSeconds(3);
    this.kv = client.getKVClient();
  }

  public String nodeId() {
    return nodeId;
  }

  @Override
  public synchronized Set<String> claim(Collection<String> candidates) {
    try {
      ensureLease();
      Map<String, KeyValue> current = new HashMap<>();
      for (KeyValue kv : get(prefix, true)) {
        current.put(kv.getKey().toString(StandardCharsets.UTF_8).substring(prefix.length()), kv);
      }
      Set<String> owned = new HashSet<>();
      for (String worker : candidates) {
        KeyValue existing = current.get(worker);
        if (existing != null) {
          if (mine(existing)) {
            owned.add(worker);
          }
          continue;
        }
        if (tryCreate(worker)) {
          owned.add(worker);
        }
      }
      // Release keys of workers that are no longer candidates.
      for (Map.Entry<String, KeyValue> e : current.entrySet()) {
        if (!candidates.contains(e.getKey()) && mine(e.getValue())) {
          release(e.getKey());
        }
      }
      return owned;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Set.of();
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      LOG.log(Level.WARNING, "etcd bridge ownership check failed: {0}", e.toString());
      return Set.of(); // without etcd we cannot prove ownership: bridge nothing
    }
  }

  private boolean mine(KeyValue kv) {
    return kv.getLease() == leaseId
        && !leaseLost
        && nodeId.equals(kv.getValue().toString(StandardCharsets.UTF_8));
  }

  private boolean tryCreate(String worker)
      throws InterruptedException, ExecutionException, TimeoutException {
    ByteSequence key = bytes(prefix + worker);
    TxnResponse r =
        kv.txn()
            .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
            .Then(Op.put(key, bytes(nodeId), PutOption.builder().withLeaseId(leaseId).build()))
            .commit()
            .get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
    return r.isSucceeded();
  }

  private void release(String worker)
      throws InterruptedException, ExecutionException, TimeoutException {
    ByteSequence key = bytes(prefix + worker);
    kv.txn()
        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.value(bytes(nodeId))))
        .Then(Op.delete(key, DeleteOption.DEFAULT))
        .commit()
        .get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private java.util.List<KeyValue> get(String key, boolean isPrefix)
      throws InterruptedException, ExecutionException, TimeoutException {
    return kv.get(bytes(key), GetOption.builder().isPrefix(isPrefix).build())
        .get(callTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .getKvs();
  }

  private void ensureLease() throws InterruptedException, ExecutionException, TimeoutException {
    if (!leaseLost) {
      return;
    }
    if (keepAlive != null) {
      keepAlive.close();
    }
    long id =
        client
            .getLeaseClient()
            .grant(leaseTtl.toSeconds())
            .get(callTimeout.toMillis(), TimeUnit.MILLISECONDS)
            .getID();
    leaseId = id;
    leaseLost = false;
    keepAlive =
        client
            .getLeaseClient()
            .keepAlive(
                id,
                new StreamObserver<LeaseKeepAliveResponse>() {
                  @Override
                  public void onNext(LeaseKeepAliveResponse r) {
                    if (r.getTTL() <= 0 && leaseId == id) {
                      leaseLost = true;
                    }
                  }

                  @Override
                  public void onError(Throwable t) {
                    if (leaseId == id) {
                      LOG.log(Level.WARNING, "etcd lease keep-alive failed: {0}", t.toString());
                      leaseLost = true;
                    }
                  }

                  @Override
                  public void onCompleted() {
                    if (leaseId == id) {
                      leaseLost = true;
                    }
                  }
                });
  }

  @Override
  public synchronized void close() {
    long id = leaseId;
    leaseLost = true;
    leaseId = 0;
    if (keepAlive != null) {
      keepAlive.close();
      keepAlive = null;
    }
    if (id != 0) {
      try {
        client.getLeaseClient().revoke(id).get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException | RuntimeException e) {
        LOG.log(Level.FINE, "lease revoke failed", e);
      }
    }
    if (ownsClient) {
      client.close();
    }
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
