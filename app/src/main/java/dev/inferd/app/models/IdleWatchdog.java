package dev.inferd.app.models;

import java.time.Duration;

/**
 * Interrupts the thread that created it when {@link #progressed()} has not been called for
 * {@code limit}: a body read from the JDK HTTP client otherwise blocks forever on a stalled
 * connection. {@link #close()} clears an interrupt it caused.
 */
final class IdleWatchdog implements AutoCloseable {
    private final Thread owner = Thread.currentThread();
    private final long limitNanos;
    private final Thread watcher;
    private volatile long lastProgress = System.nanoTime();
    private boolean closed;
    private boolean fired;

    IdleWatchdog(Duration limit) {
        this.limitNanos = limit.toNanos();
        long checkEveryMillis = Math.max(5, limit.toMillis() / 4);
        this.watcher = Thread.ofVirtual().name("inferd-download-watchdog").start(() -> watch(checkEveryMillis));
    }

    void progressed() {
        lastProgress = System.nanoTime();
    }

    synchronized boolean fired() {
        return fired;
    }

    private void watch(long checkEveryMillis) {
        try {
            while (true) {
                Thread.sleep(checkEveryMillis);
                synchronized (this) {
                    if (closed) {
                        return;
                    }
                    if (System.nanoTime() - lastProgress > limitNanos) {
                        fired = true;
                        owner.interrupt();
                        return;
                    }
                }
            }
        } catch (InterruptedException e) {
            // closed
        }
    }

    @Override
    public void close() {
        boolean clear;
        synchronized (this) {
            closed = true;
            clear = fired;
        }
        watcher.interrupt();
        if (clear) {
            Thread.interrupted();
        }
    }
}
