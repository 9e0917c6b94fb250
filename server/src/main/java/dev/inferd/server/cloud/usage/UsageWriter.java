package dev.inferd.server.cloud.usage;

import dev.inferd.server.store.RefusedRequests;
import dev.inferd.server.store.UsageRecord;
import dev.inferd.server.store.UsageStore;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes usage records with group commit: {@link #write} returns once its record is committed, as a plain insert
 * would, but the records of requests that end while a commit is under way go in together in the next one. Under
 * load many requests share one transaction (one sync to disk, one write lock), instead of queueing for the
 * database's single writer one by one; a request alone waits for its own commit only.
 *
 * <p>Refused requests ({@link #countRefusal}) are not waited for: they are added up per key and minute in memory
 * and go in with the next commit, so refusals cost no sync of their own and one row per key and minute.
 */
public final class UsageWriter implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(UsageWriter.class.getName());
    private static final long WAIT_SECONDS = 30;
    private static final long REFUSALS_DELAY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private record Pending(UsageRecord record, CompletableFuture<Void> committed) {
    }

    private final UsageStore store;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition queued = lock.newCondition();
    private List<Pending> queue = new ArrayList<>();
    private Map<List<Object>, RefusedRequests> refusals = new LinkedHashMap<>();
    private boolean closed;
    private Thread writer;

    public UsageWriter(UsageStore store) {
        this.store = store;
    }

    /**
     * Writes {@code record} and returns once it is committed.
     *
     * @throws IllegalStateException when it could not be written
     */
    public void write(UsageRecord record) throws InterruptedException {
        var pending = new Pending(record, new CompletableFuture<>());
        lock.lock();
        try {
            if (closed) throw new IllegalStateException("the usage writer is closed");
            startWriter();
            queue.add(pending);
            queued.signal();
        } finally {
            lock.unlock();
        }
        try {
            pending.committed().get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the usage record was not committed within " + WAIT_SECONDS + " s");
        }
    }

    /**
     * Counts one refused request of {@code count}'s key in its minute; returns at once (the count is committed with
     * the next batch, and lost in a crash before that: refusals are not billed).
     */
    public void countRefusal(RefusedRequests count) {
        lock.lock();
        try {
            if (closed) return;
            startWriter();
            refusals.merge(List.of(count.keyId(), count.minute()), count, RefusedRequests::plus);
            queued.signal();
        } finally {
            lock.unlock();
        }
    }

    private void startWriter() {
        if (writer == null) writer = Thread.ofPlatform().daemon(true).name("inferd-usage-writer").start(this::run);
    }

    private void run() {
        while (true) {
            List<Pending> batch;
            List<RefusedRequests> refused;
            lock.lock();
            try {
                awaitWork();
                if (queue.isEmpty() && refusals.isEmpty()) return;
                batch = queue;
                queue = new ArrayList<>();
                refused = List.copyOf(refusals.values());
                refusals = new LinkedHashMap<>();
            } finally {
                lock.unlock();
            }
            commit(batch, refused);
        }
    }

    /**
     * Waits until a record is queued or the writer is closed; refusal counts alone wait at most
     * {@link #REFUSALS_DELAY_NANOS}, so a flood of refusals costs at most one commit of its own a second.
     */
    private void awaitWork() {
        long refusalsDue = 0;
        while (queue.isEmpty() && !closed) {
            if (refusals.isEmpty()) {
                queued.awaitUninterruptibly();
                continue;
            }
            if (refusalsDue == 0) refusalsDue = System.nanoTime() + REFUSALS_DELAY_NANOS;
            long left = refusalsDue - System.nanoTime();
            if (left <= 0) return;
            try {
                queued.awaitNanos(left);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void commit(List<Pending> batch, List<RefusedRequests> refused) {
        try {
            store.commit(batch.stream().map(Pending::record).toList(), refused);
            batch.forEach(p -> p.committed().complete(null));
        } catch (RuntimeException batchFailed) {
            try {
                if (!refused.isEmpty()) store.addRefusals(refused);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "could not count " + refused.size() + " keys' refused requests: " + e.getMessage());
            }
            // one bad record must not cost the others theirs: each on its own
            LOG.log(Level.DEBUG, "a batch of " + batch.size() + " usage records failed; writing them one by one", batchFailed);
            for (Pending p : batch) {
                try {
                    store.insert(p.record());
                    p.committed().complete(null);
                } catch (RuntimeException e) {
                    p.committed().completeExceptionally(e);
                }
            }
        }
    }

    /** Writes what is queued, then stops the writer. */
    @Override
    public void close() {
        Thread running;
        lock.lock();
        try {
            closed = true;
            queued.signal();
            running = writer;
        } finally {
            lock.unlock();
        }
        if (running != null) {
            try {
                running.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
