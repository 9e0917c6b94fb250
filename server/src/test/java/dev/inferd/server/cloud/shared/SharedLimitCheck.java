package dev.inferd.server.cloud.shared;

import java.net.http.HttpResponse;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Offers one key far more than its limit through two gateways at once for a few seconds and checks that both
 * together let through what one bucket allows: its capacity plus its rate for the time spent (Bucket4j's
 * distributed buckets are exact up to the clocks of the processes, one machine here), with a 429,
 * {@code Retry-After} and the {@code x-ratelimit-*} headers on every refusal.
 */
final class SharedLimitCheck {

    /**
     * Low enough that a loaded 2-core machine still offers well over what one bucket allows in the run (its
     * capacity plus three seconds of refill, 80), so the refusals come whatever the machine's speed; two buckets
     * would allow 160.
     */
    static final int LIMIT = 20;
    private static final long RUN_NANOS = 3_000_000_000L;
    private static final int CLIENTS = 8;

    private SharedLimitCheck() {
    }

    static void across(TwoGateways gateways, String secret) throws Exception {
        var allowed = new AtomicInteger();
        var refused = new AtomicInteger();
        var failure = new AtomicReference<Throwable>();
        long started = System.nanoTime();
        try (ExecutorService clients = Executors.newFixedThreadPool(CLIENTS)) {
            for (int c = 0; c < CLIENTS; c++) {
                var target = c % 2 == 0 ? gateways.a : gateways.b;
                clients.submit(() -> {
                    try {
                        while (System.nanoTime() - started < RUN_NANOS) {
                            HttpResponse<String> r = gateways.models(target, secret);
                            assertThat(r.headers().firstValue("x-ratelimit-limit-requests")).hasValue(Integer.toString(LIMIT));
                            assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).isPresent();
                            assertThat(r.headers().firstValue("x-ratelimit-reset-requests")).isPresent();
                            switch (r.statusCode()) {
                                case 200 -> allowed.incrementAndGet();
                                case 429 -> {
                                    assertThat(r.headers().firstValue("retry-after")).hasValue("1");
                                    assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("0");
                                    refused.incrementAndGet();
                                }
                                default -> throw new AssertionError("status " + r.statusCode() + ": " + r.body());
                            }
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                });
            }
        }
        if (failure.get() != null) throw new AssertionError(failure.get());
        double seconds = (System.nanoTime() - started) / 1e9;
        int bucketAllows = LIMIT + (int) Math.ceil(LIMIT * seconds);
        System.out.printf("shared limit: %d allowed, %d refused in %.2f s through two gateways (one bucket allows %d)%n",
                allowed.get(), refused.get(), seconds, bucketAllows);
        assertThat(refused.get()).as("429s").isPositive();
        assertThat(allowed.get()).as("allowed in %.2f s", seconds).isLessThanOrEqualTo(bucketAllows);
        // Two buckets, one per gateway, would let through about twice as many; one shared bucket lets through
        // nearly all it holds while the clients offer more than it refills.
        assertThat(allowed.get()).as("allowed in %.2f s", seconds).isGreaterThan((int) (LIMIT * seconds * 0.8));
    }
}
