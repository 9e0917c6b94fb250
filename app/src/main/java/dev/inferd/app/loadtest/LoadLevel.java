package dev.inferd.app.loadtest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * One concurrency level of the load: {@code concurrency} clients, each sending its requests one
 * after the other, until each has sent {@code requestsPerClient} or {@code duration} has passed
 * (a client that is mid-request then finishes it, within the request timeout).
 */
public final class LoadLevel {

    private LoadLevel() {
    }

    /**
     * @param requestsPerClient 0 for no count limit: clients send until {@code duration} is over
     * @param requestTimeout how long past the end of {@code duration} a last request may still run
     */
    public static LevelResult run(StreamingClient client, int concurrency, int requestsPerClient, Duration duration,
                                  Duration requestTimeout) throws InterruptedException {
        Queue<RequestSample> samples = new ConcurrentLinkedQueue<>();
        long start = System.nanoTime();
        long stopStarting = start + duration.toNanos();
        ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
        try {
            for (int c = 0; c < concurrency; c++) {
                int clientIndex = c;
                clients.submit(() -> {
                    for (int r = 0; requestsPerClient == 0 || r < requestsPerClient; r++) {
                        if (System.nanoTime() >= stopStarting || Thread.currentThread().isInterrupted()) break;
                        samples.add(client.send(BenchPrompts.of(clientIndex, r)));
                    }
                });
            }
            clients.shutdown();
            long waitNanos = duration.plus(requestTimeout).plusSeconds(5).toNanos();
            if (!clients.awaitTermination(waitNanos, TimeUnit.NANOSECONDS)) {
                // A server that stopped answering: give up on the stragglers rather than hang.
                clients.shutdownNow();
                clients.awaitTermination(5, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }
        return LevelResult.of(concurrency, new ArrayList<>(samples), System.nanoTime() - start);
    }

    /** What one concurrency level measured. Durations in milliseconds; NaN where nothing was measured. */
    public record LevelResult(int concurrency, int requests, int errors, long tokens, double seconds,
                              double aggregateTokensPerS, double ttftP50Ms, double ttftP99Ms, double itlP50Ms,
                              double itlP99Ms, double perRequestTokensPerS, List<String> errorSamples) {

        static LevelResult of(int concurrency, List<RequestSample> samples, long wallNanos) {
            List<Long> ttfts = new ArrayList<>();
            List<Long> gaps = new ArrayList<>();
            List<String> errorSamples = new ArrayList<>();
            long tokens = 0;
            int errors = 0;
            double decodeRateSum = 0;
            int decodeRates = 0;
            for (RequestSample s : samples) {
                if (!s.ok()) {
                    errors++;
                    if (errorSamples.size() < 3 && !errorSamples.contains(s.error())) errorSamples.add(s.error());
                    continue;
                }
                tokens += s.tokens();
                if (s.ttftNanos() >= 0) ttfts.add(s.ttftNanos());
                gaps.addAll(s.interTokenNanos());
                long decodeNanos = s.nanos() - Math.max(0, s.ttftNanos());
                if (s.tokens() > 1 && decodeNanos > 0) {
                    decodeRateSum += (s.tokens() - 1) / (decodeNanos / 1e9);
                    decodeRates++;
                }
            }
            var ttft = new Percentiles(ttfts);
            var itl = new Percentiles(gaps);
            double seconds = wallNanos / 1e9;
            return new LevelResult(concurrency, samples.size(), errors, tokens, seconds,
                    seconds > 0 ? tokens / seconds : Double.NaN,
                    ttft.at(0.50) / 1e6, ttft.at(0.99) / 1e6, itl.at(0.50) / 1e6, itl.at(0.99) / 1e6,
                    decodeRates == 0 ? Double.NaN : decodeRateSum / decodeRates, List.copyOf(errorSamples));
        }
    }
}
