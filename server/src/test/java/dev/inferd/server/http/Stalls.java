package dev.inferd.server.http;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How long this JVM's threads were kept from running while a test waited: a thread that asks to sleep 5 ms at a
 * time adds up how much later than that it woke. On a quiet machine that is a few milliseconds a second; on an
 * overloaded one (a load average of 25 on 2 cores) seconds, and the server's own timers fire that much later
 * too. Tests that bound how soon the server acts add {@link #millis()} to their bound, so that the bound says
 * what the server does with the time it was given, not how busy the machine was.
 */
final class Stalls implements AutoCloseable {
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /** Wake-ups this much late are scheduling noise, not a stall. */
    private static final long NOISE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final AtomicLong stalledNanos = new AtomicLong();
    private final Thread meter;
    private volatile boolean running = true;

    private Stalls() {
        meter = Thread.ofPlatform().daemon().name("stall-meter").start(() -> {
            long last = System.nanoTime();
            while (running) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
                long now = System.nanoTime();
                long late = now - last - TICK_NANOS;
                if (late > NOISE_NANOS) stalledNanos.addAndGet(late);
                last = now;
            }
        });
    }

    /**
     * How many times a test's short timeouts are stretched on this machine: its load per core (the last
     * minute's load average, from {@code /proc/loadavg}), from 1 on a machine with a core to spare up to 4.
     */
    static int slowdown() {
        try {
            String[] fields = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ");
            double perCore = Double.parseDouble(fields[0]) / Runtime.getRuntime().availableProcessors();
            return (int) Math.clamp(Math.round(perCore), 1, 4);
        } catch (java.io.IOException | RuntimeException e) {
            return 1;
        }
    }

    /** Starts measuring. */
    static Stalls measure() {
        return new Stalls();
    }

    /** The stalls so far. */
    long millis() {
        return TimeUnit.NANOSECONDS.toMillis(stalledNanos.get());
    }

    @Override
    public void close() {
        running = false;
        meter.interrupt();
    }
}
