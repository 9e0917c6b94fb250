package dev.inferd.server.http;

import java.time.Duration;

/**
 * Counts the requests a server is handling, so that it can drain: once {@link #drain} is called its readiness
 * reports {@code draining} (a load balancer stops sending it work) and {@link #awaitIdle} waits for the requests
 * under way to end.
 */
public final class InFlight {
    private int count;
    private volatile boolean draining;

    /** {@code inner} (null: straight to the routes) with every request counted while it runs. */
    public HttpFilter around(HttpFilter inner) {
        return (request, response, next) -> {
            enter();
            try {
                if (inner == null) {
                    next.run();
                } else {
                    inner.filter(request, response, next);
                }
            } finally {
                leave();
            }
        };
    }

    private synchronized void enter() {
        count++;
    }

    private synchronized void leave() {
        count--;
        if (count == 0) notifyAll();
    }

    public synchronized int count() {
        return count;
    }

    /** From now on the server is draining. */
    public void drain() {
        draining = true;
    }

    public boolean draining() {
        return draining;
    }

    /**
     * Waits until no request is under way, at most {@code timeout}; true when none is. The caller's own request
     * (a probe) is not counted.
     */
    public synchronized boolean awaitIdle(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (count > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) return false;
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }
}
