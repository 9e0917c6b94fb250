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
import dev.inferd.server.store.LoadClaims;
import dev.inferd.server.store.WorkerStore;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bench-gateway --worker-model}: what the gateway -> worker hop adds to a model request. One cheap request (a
 * completion of one token) goes to {@code serve} alone, through one gateway to a worker, and through two gateways
 * (taken in turn) to the same worker, all in this process, in alternating rounds: latency one request at a time, then
 * requests per second with several clients. The gateways keep keys and usage in the database and the limits where
 * the settings say (the database's buckets, or Redis with {@code --redis}); the last lines are the figures as rows of
 * the table in docs/hosted.md.
 */
final class WorkerPathBench {
    private static final String MODEL = "bench-model";
    private static final String SECRET = "bench-gateway-worker-secret";

    private final String databaseUrl;
    private final CloudConfig config;
    private final Path modelFile;
    private final int requests;
    private final int rounds;
    private final int clients;

    WorkerPathBench(String databaseUrl, CloudConfig config, Path modelFile, int requests, int rounds, int clients) {
        this.databaseUrl = databaseUrl;
        this.config = config;
        this.modelFile = modelFile;
        this.requests = requests;
        this.rounds = rounds;
        this.clients = clients;
    }

    int run() throws Exception {
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
                var directory = new WorkerDirectory(new WorkerStore(db), new LoadClaims(db), Duration.ofSeconds(5),
                        Duration.ofMillis(500));
                open.add(directory);
                var proxy = new WorkerProxy(directory, SECRET, Duration.ofSeconds(60), Duration.ofSeconds(2));
                open.add(proxy);
                var gateway = CloudDeployment.gateway("127.0.0.1", 0, ServerOptions.defaults(), db, config, clock,
                        new CloudDeployment.Catalog(opener, limits, null), proxy, () -> null);
                open.add(gateway);
                gatewayPorts[g] = gateway.port();
            }
            measure(db.describe() + ", limits in " + (config.redis() != null ? "Redis" : db.isPostgres() ? "PostgreSQL" : "the process"),
                    key, serve.port(), gatewayPorts);
            } finally {
                // the servers and the registry's users go before the database they write to
                for (AutoCloseable c : open.reversed()) c.close();
            }
        }
        return 0;
    }

    /** Alternating rounds over the three ways to the model, then the figures, also as the rows of docs/hosted.md's table. */
    private void measure(String deployment, String key, int servePort, int[] gatewayPorts) throws Exception {
        var timer = new RequestTimer(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(), clients);
        var direct = new Way("serve alone", List.of(completion(servePort, null)));
        var ways = List.of(direct, new Way("one gateway -> worker", List.of(completion(gatewayPorts[0], key))),
                new Way("two gateways -> worker", List.of(completion(gatewayPorts[0], key), completion(gatewayPorts[1], key))));
        System.out.printf("bench-gateway: gateway -> worker path on %s, model %s, %d rounds of %d completions (1 token) each "
                + "way, %d clients for throughput, access log off%n", deployment, modelFile.getFileName(), rounds, requests, clients);
        timer.sequential(direct.requests, 200); // warm-up, and the worker loads the model
        timer.sequential(ways.getLast().requests, 200);
        for (int r = 0; r < rounds; r++) {
            for (Way way : ways) way.nanos.addAll(timer.sequential(way.requests, requests));
            for (Way way : ways) way.rps += timer.throughput(way.requests, requests) / rounds;
        }
        for (Way way : ways) RequestTimer.print("%-22s".formatted(way.label), way.nanos, way.rps);
        System.out.printf("%nThe rows of docs/hosted.md's table (%s, %d clients):%n", deployment, clients);
        System.out.println("| path | p50 | p99 | added p50 | added p99 | requests/s |");
        for (Way way : ways) {
            double p50 = RequestTimer.percentileMillis(way.nanos, 50);
            double p99 = RequestTimer.percentileMillis(way.nanos, 99);
            String added = way == direct ? " | " : String.format(Locale.ROOT, "%+.2f ms | %+.1f ms",
                    p50 - RequestTimer.percentileMillis(direct.nanos, 50), p99 - RequestTimer.percentileMillis(direct.nanos, 99));
            System.out.printf(Locale.ROOT, "| %s | %.2f ms | %.1f ms | %s | %,.0f |%n", way.label, p50, p99, added, way.rps);
        }
    }

    private static HttpRequest completion(int port, String key) {
        var builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + MODEL + "\",\"prompt\":\"Once upon\","
                        + "\"max_tokens\":1,\"temperature\":0}"));
        if (key != null) builder.header("Authorization", "Bearer " + key);
        return builder.build();
    }

    /** One way to the model, and what it measured. */
    private static final class Way {
        final String label;
        final List<HttpRequest> requests;
        final List<Long> nanos = new ArrayList<>();
        double rps;

        Way(String label, List<HttpRequest> requests) {
            this.label = label;
            this.requests = requests;
        }
    }
}
