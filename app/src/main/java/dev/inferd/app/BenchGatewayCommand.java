package dev.inferd.app;

import dev.inferd.server.cloud.CloudConfig;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.http.InferdServer;
import dev.inferd.server.http.SpeechModels;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.http.ServerOptions;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.RowIds;
import dev.inferd.server.cloud.ratelimit.LocalRateLimiter;
import dev.inferd.server.cloud.ratelimit.RateLimiter;
import dev.inferd.server.cloud.ratelimit.RateLimiters;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code inferd bench-gateway}: what the hosted gateway (key check, rate limit, usage record) adds to a request.
 * The same cheap request, {@code GET /v1/models}, goes to a plain server and to a gateway in one process, in
 * alternating rounds: latency percentiles one request at a time, then requests per second with several clients.
 * Then the rate limit alone: one key's bucket taken from one request at a time, in the deployment's store
 * (PostgreSQL's or Redis's Bucket4j buckets) and in the process, to show what sharing the limit costs.
 */
@Command(name = "bench-gateway", mixinStandardHelpOptions = true,
        description = "Measure the hosted gateway's cost per request against the plain server (GET /v1/models).")
public final class BenchGatewayCommand implements Callable<Integer> {

    @Option(names = "--database", paramLabel = "URL", description = "the gateway's database (default: a new SQLite file in a temporary folder)")
    String database;

    @Option(names = "--requests", defaultValue = "3000", description = "requests per round and server (default: ${DEFAULT-VALUE})")
    int requests;

    @Option(names = "--rounds", defaultValue = "3", description = "alternating rounds (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--clients", defaultValue = "8", description = "concurrent clients for the throughput part (default: ${DEFAULT-VALUE})")
    int clients;

    @Option(names = "--worker-model", paramLabel = "<file.gguf>",
            description = "measure the gateway -> worker path instead: one-token completions of this model from serve alone, "
                    + "through one gateway to a worker, and through two gateways, all in this process")
    Path workerModel;

    @Mixin
    RedisOption redis;

    private static final java.util.logging.Logger JETTY_LOG = java.util.logging.Logger.getLogger("org.eclipse.jetty");
    /** One log line per request would be measured as much as the gateway: off for both servers. */
    private static final java.util.logging.Logger ACCESS_LOG = java.util.logging.Logger.getLogger("inferd.access");

    @Override
    public Integer call() throws Exception {
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
        ACCESS_LOG.setLevel(java.util.logging.Level.WARNING);
        String url = database != null ? database : Database.sqliteUrl(Files.createTempDirectory("inferd-bench-gateway"));
        var config = redis.applyTo(new CloudConfig(null, 1_000_000, null, java.util.Map.of()));
        if (workerModel != null) return new WorkerPathBench(url, config, workerModel, requests, rounds, clients).run();
        try (Database db = Database.open(url);
             InferdServer plain = InferdServer.start("127.0.0.1", 0, new ModelRegistry(), new SpeechModels(), ServerOptions.defaults(), null);
             CloudDeployment cloud = CloudDeployment.start("127.0.0.1", 0, db, config, new ModelRegistry(), Clock.systemUTC())) {
            var account = cloud.accounts().createAccount("bench-" + RowIds.next("b").substring(2, 10), Actor.cli());
            String key = cloud.accounts().createKey(account.id(), KeySpec.named("bench"), Actor.cli()).secret();
            var timer = new RequestTimer(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(), clients);
            var serve = List.of(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + plain.port() + "/v1/models")).GET().build());
            var gateway = List.of(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cloud.port() + "/v1/models"))
                    .header("Authorization", "Bearer " + key).GET().build());
            System.out.printf("bench-gateway: database %s, %d rounds of %d requests each way, %d clients for throughput, access log off%n",
                    db.describe(), rounds, requests, clients);
            timer.sequential(serve, requests); // warm-up
            timer.sequential(gateway, requests);
            List<Long> serveNanos = new ArrayList<>();
            List<Long> gatewayNanos = new ArrayList<>();
            double serveRps = 0;
            double gatewayRps = 0;
            for (int r = 0; r < rounds; r++) {
                serveNanos.addAll(timer.sequential(serve, requests));
                gatewayNanos.addAll(timer.sequential(gateway, requests));
                serveRps += timer.throughput(serve, requests);
                gatewayRps += timer.throughput(gateway, requests);
            }
            RequestTimer.print("serve  ", serveNanos, serveRps / rounds);
            RequestTimer.print("gateway", gatewayNanos, gatewayRps / rounds);
            System.out.printf(Locale.ROOT, "added by the gateway: p50 %+.3f ms, p99 %+.3f ms; throughput %.0f%% of serve's%n",
                    RequestTimer.percentileMillis(gatewayNanos, 50) - RequestTimer.percentileMillis(serveNanos, 50),
                    RequestTimer.percentileMillis(gatewayNanos, 99) - RequestTimer.percentileMillis(serveNanos, 99),
                    100 * gatewayRps / serveRps);
            try (RateLimiter shared = RateLimiters.perSecond(db, config.redis()); RateLimiter local = new LocalRateLimiter()) {
                String where = config.redis() != null ? "Redis" : db.isPostgres() ? "PostgreSQL" : "in process";
                probe(shared, requests); // warm-up
                probe(local, requests);
                List<Long> sharedNanos = new ArrayList<>();
                List<Long> localNanos = new ArrayList<>();
                for (int r = 0; r < rounds; r++) {
                    sharedNanos.addAll(probe(shared, requests));
                    localNanos.addAll(probe(local, requests));
                }
                System.out.printf(Locale.ROOT, "rate limit (%s): p50 %.3f ms, p99 %.3f ms per request; in process: p50 %.4f ms, p99 %.4f ms%n",
                        where, RequestTimer.percentileMillis(sharedNanos, 50), RequestTimer.percentileMillis(sharedNanos, 99),
                        RequestTimer.percentileMillis(localNanos, 50), RequestTimer.percentileMillis(localNanos, 99));
            }
        }
        return 0;
    }

    /** One key's bucket taken {@code n} times, one after the other (the limit is never reached). */
    private static List<Long> probe(RateLimiter limiter, int n) {
        List<Long> nanos = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long start = System.nanoTime();
            if (!limiter.tryAcquire("bench-probe", 1_000_000_000).allowed()) throw new IllegalStateException("limited");
            nanos.add(System.nanoTime() - start);
        }
        return nanos;
    }
}
