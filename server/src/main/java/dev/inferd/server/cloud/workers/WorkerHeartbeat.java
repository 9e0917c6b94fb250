package dev.inferd.server.cloud.workers;

import dev.inferd.server.metrics.EngineStats;
import dev.inferd.server.pool.ModelPool;
import dev.inferd.server.store.WorkerRow;
import dev.inferd.server.store.WorkerStore;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;

/**
 * A worker's row in the registry, renewed every {@code period} with what it has loaded and is loading, its free
 * budget and its load; removed when the worker stops. A renewal that fails (the database away for a moment) is logged
 * and tried again at the next period; gateways take the worker out if that lasts.
 */
public final class WorkerHeartbeat implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(WorkerHeartbeat.class.getName());

    private final WorkerStore store;
    private final String id;
    private final String address;
    private final ModelPool pool;
    private final Clock clock;
    private final Thread thread;
    private volatile boolean draining;
    private volatile boolean renewed;
    private volatile boolean closed;

    public WorkerHeartbeat(WorkerStore store, String id, String address, ModelPool pool, Clock clock, Duration period) {
        this.store = store;
        this.id = id;
        this.address = address;
        this.pool = pool;
        this.clock = clock;
        renewQuietly();
        this.thread = Thread.ofPlatform().daemon(true).name("inferd-worker-heartbeat").start(() -> {
            while (!closed) {
                try {
                    Thread.sleep(period);
                } catch (InterruptedException e) {
                    return;
                }
                if (!closed) renewQuietly();
            }
        });
    }

    /** The row as it is now. */
    public WorkerRow row() {
        int running = 0;
        int waiting = 0;
        double kvUse = 0;
        for (EngineStats stats : pool.engineStats().values()) {
            EngineStats.Snapshot s = stats.snapshot();
            running += s.activeSequences();
            waiting += s.queuedRequests();
            if (s.kvBlocksTotal() > 0) kvUse = Math.max(kvUse, (double) s.kvBlocksUsed() / s.kvBlocksTotal());
        }
        long budget = pool.limits().memoryBudget();
        return new WorkerRow(id, address, pool.loaded(), pool.loading(), budget, Math.max(0, budget - pool.heldBytes()),
                running, waiting, kvUse, draining, 0, 0, 0);
    }

    /** Renews now; throws when the database cannot be written. */
    public void renew() {
        store.renew(row(), clock.millis());
        renewed = true;
    }

    private void renewQuietly() {
        try {
            renew();
        } catch (RuntimeException e) {
            renewed = false;
            LOG.log(Level.WARNING, "cannot renew this worker's registration: " + e.getMessage());
        }
    }

    /** Whether the last renewal reached the database. */
    public boolean registered() {
        return renewed;
    }

    /** Gateways send no new request from the next renewal on (made at once). */
    public void drain() {
        draining = true;
        renewQuietly();
    }

    /** Stops renewing and takes the row out, so that gateways drop the worker at their next read. */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            store.remove(id);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "cannot remove this worker's registration: " + e.getMessage());
        }
    }
}
