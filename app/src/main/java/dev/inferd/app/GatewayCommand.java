package dev.inferd.app;

import dev.inferd.app.models.CatalogModelOpener;
import dev.inferd.app.models.ModelLoading;
import dev.inferd.app.models.ModelResolver;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.cloud.workers.WorkerDirectory;
import dev.inferd.server.cloud.workers.WorkerProxy;
import dev.inferd.server.pool.PoolLimits;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.LoadClaims;
import dev.inferd.server.store.WorkerStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code inferd gateway}: the hosted API with no model of its own, routing to the workers in the registry. */
@Command(name = "gateway", mixinStandardHelpOptions = true,
        header = "Serve the hosted API with no model, routing to workers.",
        description = {
                "Serve the hosted API as `cloud` does (keys, scopes, rate limits, usage, the admin API, the dashboard,",
                "the catalog) with no model of its own: each model request goes to a worker (`inferd worker`) found in the",
                "database's registry: one that has the model loaded and the fewest requests, the one that holds the",
                "conversation's prefix when it is not much busier, else the worker with the most free budget loads it.",
                "Run several gateways on one database behind any HTTP load balancer. SIGTERM drains."})
public final class GatewayCommand implements Callable<Integer> {
    @Mixin
    StoreOptions store;

    @Mixin
    ServerOptionsMixin server;

    @Mixin
    WorkerSecretOption secret;

    @Mixin
    RedisOption redis;

    @Option(names = "--load-wait", defaultValue = "30s", paramLabel = "DURATION", converter = Durations.Converter.class,
            description = "how long a request waits for a worker to load its model before a 503 with Retry-After (default: ${DEFAULT-VALUE})")
    Duration loadWait;

    @Option(names = "--worker-ttl", defaultValue = "4s", paramLabel = "DURATION", converter = Durations.Converter.class,
            description = "a worker whose registration has not been renewed for this long takes no request (default: ${DEFAULT-VALUE})")
    Duration workerTtl;

    @Option(names = "--connect-timeout", defaultValue = "2s", paramLabel = "DURATION", converter = Durations.Converter.class,
            description = "how long connecting to a worker may take before the request goes to another (default: ${DEFAULT-VALUE})")
    Duration connectTimeout;

    @Mixin
    HostedProcess process;

    @Override
    public Integer call() {
        String problem = HostedProcess.firstProblem(server.problem(), workerTtl.toMillis() < 200 || connectTimeout.toMillis() < 1
                ? "--worker-ttl must be at least 200ms and --connect-timeout more than 0" : null);
        return process.run(problem, store, redis, secret, server, ServeCommand.DEFAULT_PORT, this::serve);
    }

    private void serve(Database db, HostedProcess.Settings settings) throws InterruptedException {
        try (var directory = new WorkerDirectory(new WorkerStore(db), new LoadClaims(db), workerTtl, refreshPeriod());
             var proxy = new WorkerProxy(directory, settings.workerSecret(), loadWait, connectTimeout)) {
            // the gateway loads no model: its catalog only lists and checks them
            var opener = new CatalogModelOpener(ModelResolver.fromEnvironment(), new ModelLoading(0, 0, 0, 0, 0, null), true,
                    event -> { });
            var catalog = new CloudDeployment.Catalog(opener, PoolLimits.defaults(0).withLoadWait(loadWait), store.configuredModels());
            try (CloudDeployment gateway = CloudDeployment.gateway(server.host, server.port(ServeCommand.DEFAULT_PORT),
                    server.serverOptions(), db, settings.config(), Clock.systemUTC(), catalog, proxy,
                    () -> directory.live().isEmpty() ? "no worker is live" : null)) {
                String base = "http://" + server.urlHost() + ":" + gateway.port();
                System.out.println("inferd: gateway serving on " + base + "/v1 (API keys required), dashboard " + base
                        + "/dashboard, database " + db.describe() + "; " + directory.live().size() + " workers live. Ctrl-C drains and stops.");
                process.serveUntilStopped(gateway::drain, gateway);
            }
        }
    }

    /** The registry is re-read a few times per ttl, so a silent worker is out within about the ttl. */
    private Duration refreshPeriod() {
        return Duration.ofMillis(Math.max(100, workerTtl.toMillis() / 4));
    }
}
