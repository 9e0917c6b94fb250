package dev.inferd.engine.tensor.parallel;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;

/**
 * A fixed set of threads that run the tasks of one {@link #parallelFor} at a time: matrix rows,
 * attention heads. The calling thread works too, so a pool of {@code n} threads starts {@code n - 1}.
 *
 * <p>Decode runs hundreds of small parallel loops per token, so handing out work must cost
 * microseconds: idle workers spin for about 50 µs before parking, and a {@link Task} call allocates
 * nothing. The first exception a task throws is rethrown to the caller once every task has ended.
 *
 * <p>A {@code parallelFor} made from inside a task (or while the same thread already runs one) runs
 * inline instead of deadlocking; calls from different outside threads take turns.
 */
public final class WorkerPool implements AutoCloseable {

    /** A task that also learns which worker runs it, for per-worker scratch buffers. */
    @FunctionalInterface
    public interface Task {
        /**
         * @param task   the task index, {@code 0 <= task < tasks}
         * @param worker the worker, {@code 0 <= worker < threads()}; no two tasks running at the same time
         *               have the same worker index
         */
        void run(int task, int worker);
    }

    private static final long SPIN_NANOS = 50_000;
    private static final Object CONFIGURE_LOCK = new Object();
    private static volatile WorkerPool shared;

    private final int threads;
    private final Worker[] workers;
    private final ReentrantLock callLock = new ReentrantLock();

    // The current call. ctl packs (generation << 32 | next task index): a worker claims a task only
    // while the generation it saw is still current, so a late worker never runs a new call's task
    // with an old call's body (see runShared for the odd/even generations).
    private final AtomicLong ctl = new AtomicLong();
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile Task body;
    private volatile int taskCount;
    private volatile Thread caller;
    private volatile boolean callerParked;
    private volatile boolean closed;

    public WorkerPool(int threads) {
        if (threads < 1) throw new IllegalArgumentException("a worker pool needs at least 1 thread, got " + threads);
        this.threads = threads;
        workers = new Worker[threads - 1];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Worker(i + 1);
            workers[i].start();
        }
    }

    /** Sets the size of the shared pool (at start-up; closes the previous one). */
    public static void configure(int threads) {
        synchronized (CONFIGURE_LOCK) {
            WorkerPool old = shared;
            shared = new WorkerPool(threads);
            if (old != null) old.close();
        }
    }

    /** The shared pool: as configured, or one thread per available processor. */
    public static WorkerPool shared() {
        WorkerPool p = shared;
        if (p != null) return p;
        synchronized (CONFIGURE_LOCK) {
            if (shared == null) shared = new WorkerPool(Runtime.getRuntime().availableProcessors());
            return shared;
        }
    }

    public int threads() { return threads; }

    /**
     * Runs {@code body} for {@code 0 <= task < tasks}, spread over the pool; returns when all are done.
     * Wraps {@code body} in a small object per call; hot loops use the {@link Task} form with a reused task.
     */
    public void parallelFor(int tasks, IntConsumer body) {
        parallelFor(tasks, (task, worker) -> body.accept(task));
    }

    /** Runs {@code body} for {@code 0 <= task < tasks}, spread over the pool; returns when all are done. */
    public void parallelFor(int tasks, Task body) {
        if (tasks <= 0) return;
        Thread me = Thread.currentThread();
        if (me instanceof Worker w && w.pool() == this) {
            runInline(tasks, body, w.index);
            return;
        }
        if (callLock.isHeldByCurrentThread()) {
            runInline(tasks, body, 0);
            return;
        }
        if (closed) throw new IllegalStateException("worker pool is closed");
        callLock.lock();
        try {
            if (threads == 1 || tasks == 1) {
                runInline(tasks, body, 0);
                return;
            }
            runShared(tasks, body, me);
        } finally {
            callLock.unlock();
        }
    }

    private static void runInline(int tasks, Task body, int worker) {
        for (int t = 0; t < tasks; t++) body.run(t, worker);
    }

    private void runShared(int tasks, Task body, Thread me) {
        // An odd generation closes the previous call to late workers while the new one is set up; the
        // next, even generation opens it.
        int generation = (int) (ctl.get() >>> 32) + 2;
        ctl.set((long) (generation - 1) << 32);
        this.body = body;
        this.taskCount = tasks;
        this.caller = me;
        failure.set(null);
        pending.set(tasks);
        ctl.set((long) generation << 32);
        for (Worker w : workers) {
            if (w.parked) LockSupport.unpark(w);
        }
        work(generation, body, tasks, 0);
        awaitCompletion();
        this.body = null;
        Throwable t = failure.getAndSet(null);
        if (t != null) {
            if (t instanceof RuntimeException re) throw re;
            if (t instanceof Error e) throw e;
            throw new IllegalStateException(t);
        }
    }

    private void work(int generation, Task body, int tasks, int worker) {
        while (true) {
            long c = ctl.get();
            if ((int) (c >>> 32) != generation) return;
            int task = (int) c;
            if (task >= tasks) return;
            if (!ctl.compareAndSet(c, c + 1)) continue;
            try {
                body.run(task, worker);
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
            if (pending.decrementAndGet() == 0 && callerParked) LockSupport.unpark(caller);
        }
    }

    private void awaitCompletion() {
        long start = System.nanoTime();
        int spins = 0;
        while (pending.get() != 0) {
            if (++spins % 64 != 0 || System.nanoTime() - start < SPIN_NANOS) {
                Thread.onSpinWait();
                continue;
            }
            callerParked = true;
            if (pending.get() != 0) LockSupport.park(this);
            callerParked = false;
        }
    }

    /** Stops the workers (after the call in progress, if any). */
    @Override
    public void close() {
        closed = true;
        for (Worker w : workers) LockSupport.unpark(w);
    }

    private final class Worker extends Thread {
        final int index;
        volatile boolean parked;

        Worker(int index) {
            super("inferd-worker-" + index);
            this.index = index;
            setDaemon(true);
        }

        WorkerPool pool() { return WorkerPool.this; }

        @Override
        public void run() {
            int seen = 0; // the generation before the first call
            while (!closed) {
                int generation = awaitCall(seen);
                if (generation == seen) continue; // closed or spurious wake-up
                seen = generation;
                Task b = body;
                int n = taskCount;
                if (b != null) work(generation, b, n, index);
            }
        }

        private int awaitCall(int seen) {
            long start = System.nanoTime();
            int spins = 0;
            while (!closed) {
                int generation = (int) (ctl.get() >>> 32);
                if (generation != seen && (generation & 1) == 0) return generation;
                if (++spins % 64 != 0 || System.nanoTime() - start < SPIN_NANOS) {
                    Thread.onSpinWait();
                    continue;
                }
                parked = true;
                int now = (int) (ctl.get() >>> 32);
                if ((now == seen || (now & 1) != 0) && !closed) LockSupport.park(this);
                parked = false;
                start = System.nanoTime();
            }
            return seen;
        }
    }
}
