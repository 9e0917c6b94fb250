package dev.inferd.app;

import dev.inferd.server.cloud.deploy.WorkerDeployment;
import dev.inferd.server.store.Database;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

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

    @Mixin
    HostedProcess process;

    @Override
    public Integer call() {
        String problem = HostedProcess.firstProblem(server.problem(), modelOptions.problem(), poolOptions.problem(),
                heartbeat.toMillis() < 100 ? "--heartbeat must be at least 100ms" : null);
        return process.run(problem, store, redis, secret, server, DEFAULT_PORT, this::serve);
    }

    private void serve(Database db, HostedProcess.Settings settings) throws InterruptedException {
        var registration = new WorkerDeployment.Registration(workerId, advertise, settings.workerSecret(), heartbeat);
        try (WorkerDeployment worker = WorkerDeployment.start(server.host, server.port(DEFAULT_PORT), server.serverOptions(),
                db, settings.config(), Clock.systemUTC(), poolOptions.catalog(modelOptions, server, store), registration)) {
            System.out.printf(Locale.ROOT, "inferd: worker %s serving gateways on port %d (database %s); models loaded on "
                            + "demand within %.1f GiB. Ctrl-C drains and stops.%n", worker.heartbeat().row().id(), worker.port(),
                    db.describe(), poolOptions.poolLimits().memoryBudget() / (double) (1L << 30));
            process.serveUntilStopped(worker::drain, worker);
        }
    }
}
