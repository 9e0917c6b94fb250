package dev.inferd.app;

import dev.inferd.app.models.CatalogModelOpener;
import dev.inferd.app.models.ModelLoading;
import dev.inferd.app.models.ModelResolver;
import dev.inferd.server.cloud.CloudConfig;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.cloud.deploy.WorkerDeployment;
import dev.inferd.server.pool.PoolLimits;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.StoreException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code inferd worker}: serves the deployment's models to its gateways, registered in the database. */
@Command(name = "worker", mixinStandardHelpOptions = true,
        header = "Serve the deployment's models to its gateways.",
        description = {
                "Serve the deployment's models to its gateways (`inferd gateway`): the catalog in the database, each model",
                "loaded on a request's demand within the memory budget, as `cloud` does. The worker registers itself in",
                "the database (address, loaded models, free budget, load) and renews that every --heartbeat; gateways",
                "route by it. It answers only requests that carry the shared secret (--secret-file or $" + WorkerSecretOption.ENV + ");",
                "GET /health, /ready and /metrics are open. Keys, limits and usage belong to the gateways.",
                "SIGTERM drains: gateways send no new work, the requests under way finish within --drain-timeout."})
public final class WorkerCommand implements Callable<Integer> {
    static final int DEFAULT_PORT = 8001;
    private static final java.util.logging.Logger JETTY_LOG = java.util.logging.Logger.getLogger("org.eclipse.jetty");

    @Mixin
    StoreOptions store;

    @Mixin
    ServerOptionsMixin server;

    @Mixin
    ModelOptionsMixin modelOptions;

    @Mixin
    PoolOptionsMixin poolOptions;

    @Mixin
    WorkerSecretOption secret;

    @Mixin
    RedisOption redis;

    @Option(names = "--advertise", paramLabel = "URL",
            description = "the base URL gateways reach this worker at, e.g. http://10.0.0.5:8001 (default: http://HOST:PORT "
                    + "as it listens; give it when --host is 0.0.0.0)")
    String advertise;

    @Option(names = "--worker-id", paramLabel = "ID", description = "this worker's name in the registry, unique in the deployment "
            + "(default: the advertised address without its scheme)")
    String workerId;

    @Option(names = "--heartbeat", defaultValue = "1s", paramLabel = "DURATION", converter = Durations.Converter.class,
            description = "how often the registration is renewed; gateways drop a worker silent for a few of these (default: ${DEFAULT-VALUE})")
    Duration heartbeat;

    @Option(names = "--drain-timeout", defaultValue = "30s", paramLabel = "DURATION", converter = Durations.Converter.class,
            description = "on SIGTERM, how long the requests under way may take to finish (default: ${DEFAULT-VALUE})")
    Duration drainTimeout;

    @Override
    public Integer call() {
        String problem = server.problem() != null ? server.problem() : modelOptions.problem();
        if (problem == null) problem = poolOptions.problem();
        if (problem == null && heartbeat.toMillis() < 100) problem = "--heartbeat must be at least 100ms";
        if (problem != null) {
            System.err.println("inferd: " + problem);
            return 2;
        }
        String shared;
        CloudConfig config;
        try {
            shared = secret.secret();
            config = redis.applyTo(store.readConfig());
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("inferd: " + e.getMessage());
            return 2;
        }
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
        PoolLimits limits = poolOptions.poolLimits();
        ModelLoading loading = PoolOptionsMixin.pooledLoading(modelOptions.loading(server));
        try (Database db = Database.open(store.databaseUrl(config))) {
            var opener = new CatalogModelOpener(ModelResolver.fromEnvironment(), loading, modelOptions.offline, new ModelEvents(System.out));
            var catalog = new CloudDeployment.Catalog(opener, limits, store.config == null ? null : () -> store.readConfig().models());
            var registration = new WorkerDeployment.Registration(workerId, advertise, shared, heartbeat);
            try (WorkerDeployment worker = WorkerDeployment.start(server.host, server.port(DEFAULT_PORT), server.serverOptions(),
                    db, config, Clock.systemUTC(), catalog, registration)) {
                System.out.printf(Locale.ROOT, "inferd: worker %s serving gateways on port %d (database %s); models loaded on "
                                + "demand within %.1f GiB. Ctrl-C drains and stops.%n", worker.heartbeat().row().id(), worker.port(),
                        db.describe(), limits.memoryBudget() / (double) (1L << 30));
                System.out.flush();
                Shutdown.drainThenClose(worker::drain, worker, drainTimeout).await();
            }
            return 0;
        } catch (StoreException | IllegalArgumentException e) {
            System.err.println("inferd: " + e.getMessage());
            return 1;
        } catch (IllegalStateException e) {
            System.err.println("inferd: cannot listen on " + server.host + ":" + server.port(DEFAULT_PORT) + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }
}
