package dev.inferd.app;

import dev.inferd.app.models.CatalogModelOpener;
import dev.inferd.app.models.ModelLoading;
import dev.inferd.app.models.ModelResolver;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.server.cloud.CloudConfig;
import dev.inferd.server.cloud.auth.Accounts;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.cloud.deploy.WorkerDeployment;
import dev.inferd.server.cloud.workers.WorkerDirectory;
import dev.inferd.server.cloud.workers.WorkerProxy;
import dev.inferd.server.http.InferdServer;
import dev.inferd.server.http.ServerOptions;
import dev.inferd.server.pool.PoolLimits;
import dev.inferd.server.store.CatalogModel;
import dev.inferd.server.store.CatalogStore;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.WorkerStore;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code bench-gateway --worker-model}: what the gateway -> worker hop adds to a model request. One cheap request (a
 * completion of one token) goes to {@code serve} alone, through one gateway to a worker, and through two gateways
 * (alternately) to the same worker, all in this process: latency one request at a time, then requests per second.
 */
final class WorkerPathBench {
    private static final String MODEL = "bench-model";
    private static final String SECRET = "bench-gateway-worker-secret";

    private final String databaseUrl;
    private final Path modelFile;
    private final int requests;
    private final int rounds;
    private final int clients;

    WorkerPathBench(String databaseUrl, Path modelFile, int requests, int rounds, int clients) {
        this.databaseUrl = databaseUrl;
        this.modelFile = modelFile;
        this.requests = requests;
        this.rounds = rounds;
        this.clients = clients;
    }

    int run() throws Exception {
        var config = new CloudConfig(null, 1_000_000, null, Map.of());
        var loading = new ModelLoading(0, 64L << 20, 0, 0, 0, null);
        var clock = Clock.systemUTC();
        List<AutoCloseable> open = new ArrayList<>();
        try (Database db = Database.open(databaseUrl)) {
            try {
            new CatalogStore(db).addAll(List.of(new CatalogModel(MODEL, "bench", "chat", modelFile.toAbsolutePath().toString(),
                    clock.millis() / 1000)));
            var accounts = new Accounts(db, clock);
            var account = accounts.createAccount("bench-" + Long.toHexString(System.nanoTime()), Actor.cli());
            String key = accounts.createKey(account.id(), KeySpec.named("bench"), Actor.cli()).secret();

            LocalTextGenerator alone = loading.openText(modelFile, MODEL, "bench", event -> { });
            open.add(alone);
            alone.awaitAfterLoad();
            InferdServer serve = InferdServer.start("127.0.0.1", 0, Map.of(MODEL, alone));
            open.add(serve);

            var opener = new CatalogModelOpener(ModelResolver.fromEnvironment(), loading, true, event -> { });
            var limits = PoolLimits.defaults(8L << 30).withLoadWait(Duration.ofSeconds(60));
            var worker = WorkerDeployment.start("127.0.0.1", 0, ServerOptions.defaults(), db, config, clock,
                    new CloudDeployment.Catalog(opener, limits, null),
                    new WorkerDeployment.Registration("bench-worker", null, SECRET, Duration.ofSeconds(1)));
            open.add(worker);
            int[] gatewayPorts = new int[2];
            for (int g = 0; g < 2; g++) {
                var directory = new WorkerDirectory(new WorkerStore(db), Duration.ofSeconds(5), Duration.ofMillis(500));
                open.add(directory);
                var proxy = new WorkerProxy(directory, SECRET, Duration.ofSeconds(60), Duration.ofSeconds(2));
                open.add(proxy);
                var gateway = CloudDeployment.gateway("127.0.0.1", 0, ServerOptions.defaults(), db, config, clock,
                        new CloudDeployment.Catalog(opener, limits, null), proxy, () -> null);
                open.add(gateway);
                gatewayPorts[g] = gateway.port();
            }
            var http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpRequest direct = completion(serve.port(), null);
            HttpRequest viaFirst = completion(gatewayPorts[0], key);
            HttpRequest viaSecond = completion(gatewayPorts[1], key);
            System.out.printf("bench-gateway: gateway -> worker path on %s, model %s, %d rounds of %d completions (1 token) each way, "
                    + "%d clients for throughput, access log off%n", db.describe(), modelFile.getFileName(), rounds, requests, clients);
            sequential(http, List.of(direct), 200); // warm-up, and the worker loads the model
            sequential(http, List.of(viaFirst, viaSecond), 200);
            List<Long> serveNanos = new ArrayList<>();
            List<Long> gatewayNanos = new ArrayList<>();
            double serveRps = 0;
            double oneRps = 0;
            double twoRps = 0;
            for (int r = 0; r < rounds; r++) {
                serveNanos.addAll(sequential(http, List.of(direct), requests));
                gatewayNanos.addAll(sequential(http, List.of(viaFirst), requests));
                serveRps += throughput(http, List.of(direct));
                oneRps += throughput(http, List.of(viaFirst));
                twoRps += throughput(http, List.of(viaFirst, viaSecond));
            }
            print("serve alone          ", serveNanos, serveRps / rounds);
            print("one gateway -> worker", gatewayNanos, oneRps / rounds);
            System.out.printf(Locale.ROOT, "two gateways -> worker: %.0f requests/s with the clients%n", twoRps / rounds);
            System.out.printf(Locale.ROOT, "added by gateway -> worker: p50 %+.3f ms, p99 %+.3f ms; throughput %.0f%% (one gateway), "
                            + "%.0f%% (two) of serve's%n",
                    (percentile(gatewayNanos, 50) - percentile(serveNanos, 50)) / 1e6,
                    (percentile(gatewayNanos, 99) - percentile(serveNanos, 99)) / 1e6, 100 * oneRps / serveRps,
                    100 * twoRps / serveRps);
            } finally {
                // the servers and the registry's users go before the database they write to
                for (AutoCloseable c : open.reversed()) c.close();
            }
        }
        return 0;
    }

    private static HttpRequest completion(int port, String key) {
        var builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + MODEL + "\",\"prompt\":\"Once upon\","
                        + "\"max_tokens\":1,\"temperature\":0}"));
        if (key != null) builder.header("Authorization", "Bearer " + key);
        return builder.build();
    }

    /** {@code n} requests one after the other, taking the given requests in turn. */
    private static List<Long> sequential(HttpClient http, List<HttpRequest> targets, int n) throws Exception {
        List<Long> nanos = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long start = System.nanoTime();
            var response = http.send(targets.get(i % targets.size()), HttpResponse.BodyHandlers.discarding());
            nanos.add(System.nanoTime() - start);
            if (response.statusCode() != 200) throw new IllegalStateException("status " + response.statusCode());
        }
        return nanos;
    }

    private double throughput(HttpClient http, List<HttpRequest> targets) throws Exception {
        try (var pool = Executors.newFixedThreadPool(clients)) {
            long start = System.nanoTime();
            List<Future<List<Long>>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                List<HttpRequest> mine = List.of(targets.get(c % targets.size()));
                done.add(pool.submit(() -> sequential(http, mine, requests / clients)));
            }
            for (var f : done) f.get();
            return (double) (requests / clients * clients) / ((System.nanoTime() - start) / 1e9);
        }
    }

    /** Nearest rank. */
    private static double percentile(List<Long> nanos, int p) {
        long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.clamp(rank - 1, 0, sorted.length - 1)];
    }

    private static void print(String label, List<Long> nanos, double rps) {
        System.out.printf(Locale.ROOT, "%s  p50 %.3f ms  p99 %.3f ms  %.0f requests/s with the clients%n", label,
                percentile(nanos, 50) / 1e6, percentile(nanos, 99) / 1e6, rps);
    }
}
