package dev.inferd.server.http;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Bounds how long a write to a client may block. A client that stops reading fills the socket's
 * buffers and the write then blocks for as long as the client likes, holding its model slot. Past
 * the deadline the writing thread is interrupted: a virtual thread blocked in socket I/O has its
 * socket closed by the interrupt, the write fails, and the request ends as a departed client (its
 * generation cancelled, its slot given back).
 */
final class WriteDeadline {

    /** The deadline of the requests the current thread serves; none when unbound. */
    static final ScopedValue<Duration> TIMEOUT = ScopedValue.newInstance();

    private static final ScheduledExecutorService TIMER = timer();

    private WriteDeadline() {
    }

    private static ScheduledExecutorService timer() {
        var timer = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon().name("inferd-write-deadline").factory());
        timer.setRemoveOnCancelPolicy(true);
        return Executors.unconfigurableScheduledExecutorService(timer);
    }

    /** Runs one write under the current request's deadline. */
    static void write(Runnable write) {
        if (!TIMEOUT.isBound()) {
            write.run();
            return;
        }
        Thread writer = Thread.currentThread();
        ScheduledFuture<?> deadline = TIMER.schedule(writer::interrupt, TIMEOUT.get().toMillis(), TimeUnit.MILLISECONDS);
        boolean expired;
        try {
            write.run();
        } catch (RuntimeException e) {
            deadline.cancel(false);
            if (deadlinePassed(deadline)) throw new ClientGoneException(e);
            throw e;
        }
        deadline.cancel(false);
        expired = deadlinePassed(deadline);
        // The deadline fired as the write finished: the socket may be closed already.
        if (expired) throw new ClientGoneException(null);
    }

    /** True when the interrupt was sent; clears it, so that it cannot surface in a later wait. */
    private static boolean deadlinePassed(ScheduledFuture<?> deadline) {
        if (deadline.isCancelled()) return false;
        try {
            deadline.get();
        } catch (Exception e) {
            // it ran; its outcome does not matter
        }
        Thread.interrupted();
        return true;
    }
}
