package dev.inferd.app;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * SIGTERM (or Ctrl-C) drains a server, then stops it: it stops taking work ({@code /ready} answers 503, a worker's
 * registration says draining), lets the requests under way finish within the drain timeout, and closes.
 */
final class Shutdown {

    @FunctionalInterface
    interface Drain {
        /** True when every request under way finished in time. */
        boolean drain(Duration timeout) throws InterruptedException;
    }

    private Shutdown() {
    }

    /** Installs the hook; the latch opens once the server is closed. */
    static CountDownLatch drainThenClose(Drain drain, AutoCloseable server, Duration timeout) {
        var stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.err.println("inferd: draining (at most " + Durations.format(timeout) + ")");
            try {
                if (!drain.drain(timeout)) System.err.println("inferd: requests still under way at the drain timeout are cut");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            System.err.println("inferd: shutting down");
            try {
                server.close();
            } catch (Exception e) {
                System.err.println("inferd: stopping failed: " + e.getMessage());
            }
            stopped.countDown();
        }, "inferd-shutdown"));
        return stopped;
    }
}
