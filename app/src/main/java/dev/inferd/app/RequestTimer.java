package dev.inferd.app;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The measurements of {@code bench-gateway}: requests timed one after the other, requests per second with several
 * clients, and nearest-rank percentiles of the times. Any answer but 200 stops the run: a refused request would be
 * timed as a fast one.
 */
final class RequestTimer {

    private final HttpClient http;
    private final int clients;

    RequestTimer(HttpClient http, int clients) {
        this.http = http;
        this.clients = clients;
    }

    /** {@code n} requests one after the other, taking {@code targets} in turn; each one's time in nanoseconds. */
    List<Long> sequential(List<HttpRequest> targets, int n) throws Exception {
        List<Long> nanos = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            HttpRequest request = targets.get(i % targets.size());
            long start = System.nanoTime();
            var response = http.send(request, HttpResponse.BodyHandlers.discarding());
            nanos.add(System.nanoTime() - start);
            if (response.statusCode() != 200) throw new IllegalStateException("status " + response.statusCode() + " from " + request.uri());
        }
        return nanos;
    }

    /** Requests per second of the clients together, each sending {@code n / clients} requests to one of {@code targets}. */
    double throughput(List<HttpRequest> targets, int n) throws Exception {
        try (var pool = Executors.newFixedThreadPool(clients)) {
            long start = System.nanoTime();
            List<Future<List<Long>>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                List<HttpRequest> mine = List.of(targets.get(c % targets.size()));
                done.add(pool.submit(() -> sequential(mine, n / clients)));
            }
            for (var f : done) f.get();
            return (double) (n / clients * clients) / ((System.nanoTime() - start) / 1e9);
        }
    }

    /** Nearest rank, in milliseconds. */
    static double percentileMillis(List<Long> nanos, int p) {
        long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.clamp(rank - 1, 0, sorted.length - 1)] / 1e6;
    }

    static void print(String label, List<Long> nanos, double rps) {
        System.out.printf(Locale.ROOT, "%s  p50 %.3f ms  p99 %.3f ms  %.0f requests/s with the clients%n", label,
                percentileMillis(nanos, 50), percentileMillis(nanos, 99), rps);
    }
}
