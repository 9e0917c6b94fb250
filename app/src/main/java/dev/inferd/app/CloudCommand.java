package dev.inferd.app;

import dev.inferd.app.models.CatalogModelOpener;
import dev.inferd.app.models.ModelException;
import dev.inferd.app.models.ModelResolver;
import dev.inferd.app.models.ModelsConfig;
import dev.inferd.server.cloud.CloudConfig;
import dev.inferd.server.cloud.catalog.ModelSpec;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.pool.ModelPool;
import dev.inferd.server.pool.PoolLimits;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.StoreException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code inferd cloud}: the API of {@code serve} behind API keys, rate limits and usage metering, with its dashboard. */
@Command(name = "cloud", mixinStandardHelpOptions = true,
        header = "Serve the OpenAI API behind API keys, as a hosted deployment.",
        description = {
                "Serve the OpenAI API as a hosted deployment: every /v1 request needs Authorization: Bearer <key>;",
                "per-key scopes, rate limits (429), usage and cost records; the admin API under /admin/v1/ and the",
                "dashboard at /dashboard. The database is an SQLite file under $INFERD_HOME unless --database says otherwise.",
                "GET /v1/models lists the deployment's catalog: the catalog of `inferd models` at first,",
                "changed by the admin API and the config's \"models\" (SIGHUP or POST /admin/v1/reload re-reads it).",
                "A request for a listed model loads it (downloading it first if need be) within the memory",
                "budget, unloading the least recently used idle model."})
public final class CloudCommand implements Callable<Integer> {
    private static final java.util.logging.Logger JETTY_LOG = java.util.logging.Logger.getLogger("org.eclipse.jetty");
    /** With the default KV cache of an eighth of the heap each, this many models' caches fill the heap at most. */
    static final int DEFAULT_MAX_LOADED = 8;

    @Mixin
    StoreOptions store;

    @Mixin
    RedisOption redis;

    @Option(names = "--model", paramLabel = "<slug|file.gguf>",
            description = "a catalog slug or a model file to add to the catalog (when not listed) and load at start; repeatable")
    List<String> models = new ArrayList<>();

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to listen on (default: ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--port", defaultValue = "8000", description = "port to listen on (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--ctx", defaultValue = "0", paramLabel = "N", description = "context length in tokens (default: the model's)")
    int contextLength;

    @Option(names = "--threads", defaultValue = "0", paramLabel = "N", description = "compute threads (default: all cores)")
    int threads;

    @Option(names = "--kv-memory", defaultValue = "0", paramLabel = "SIZE",
            description = "memory for the KV cache per loaded model, e.g. 1g (default: an eighth of the Java heap)")
    String kvMemory;

    @Option(names = "--max-loaded-models", defaultValue = "" + DEFAULT_MAX_LOADED, paramLabel = "N",
            description = "models loaded at once; the least recently used idle one is unloaded for another; 0 for no "
                    + "limit but --memory-budget (default: ${DEFAULT-VALUE}, so that the default KV caches fit the heap)")
    int maxLoadedModels;

    @Option(names = "--memory-budget", defaultValue = "0", paramLabel = "SIZE",
            description = "memory all loaded models may take together (weights, their copies, KV caches), e.g. 16g "
                    + "(default: three quarters of the machine's memory)")
    String memoryBudget;

    @Option(names = "--load-wait", defaultValue = "10s", paramLabel = "DURATION",
            description = "how long a request waits for its model to load before a 503 with Retry-After, e.g. 10s, 500ms, 2m (default: ${DEFAULT-VALUE})")
    String loadWait;

    @Option(names = "--offline", description = "never download: use cached catalog models or files only")
    boolean offline;

    @Override
    public Integer call() {
        if (port < 0 || port > 65535 || threads < 0 || contextLength < 0 || maxLoadedModels < 0) {
            System.err.println("inferd: --port, --threads, --ctx and --max-loaded-models must be positive (--port at most 65535)");
            return 2;
        }
        PoolLimits limits;
        long kvBytes;
        try {
            kvBytes = ByteSize.parse(kvMemory);
            // The KV caches live in the heap: models loaded side by side must not each take the engine's default share of it.
            if (kvBytes == 0) kvBytes = Runtime.getRuntime().maxMemory() / DEFAULT_MAX_LOADED;
            long budget = ByteSize.parse(memoryBudget);
            limits = PoolLimits.defaults(physicalMemory()).withMaxLoaded(maxLoadedModels).withLoadWait(parseDuration(loadWait));
            if (budget > 0) limits = limits.withMemoryBudget(budget);
        } catch (IllegalArgumentException e) {
            System.err.println("inferd: --kv-memory, --memory-budget, --load-wait: " + e.getMessage());
            return 2;
        }
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
        CloudConfig config;
        try {
            config = redis.applyTo(store.readConfig());
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("inferd: cannot read --config " + store.config + ": " + e.getMessage());
            return 2;
        }
        try (Database db = Database.open(store.databaseUrl(config))) {
            ModelResolver resolver = ModelResolver.fromEnvironment();
            Path copies = ModelsConfig.fromEnvironment(System::getenv).copiesDir();
            var opener = new CatalogModelOpener(resolver,
                    new CatalogModelOpener.LoadOptions(contextLength, kvBytes, threads, copies), offline, new ModelEvents(System.out));
            var catalog = new CloudDeployment.Catalog(opener, limits, store.config == null ? null : () -> store.readConfig().models());
            try (CloudDeployment cloud = CloudDeployment.withCatalog(host, port, db, config, Clock.systemUTC(), catalog)) {
                preload(cloud);
                reloadOnHangUp(cloud);
                printStart(cloud, db, limits);
                var stopped = new CountDownLatch(1);
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    System.err.println("inferd: shutting down");
                    cloud.close();
                    stopped.countDown();
                }, "inferd-shutdown"));
                stopped.await();
            }
            return 0;
        } catch (StoreException e) {
            System.err.println("inferd: " + e.getMessage());
            return 1;
        } catch (ModelException | IllegalArgumentException e) {
            System.err.println("inferd: " + e.getMessage());
            return 1;
        } catch (ApiError e) {
            System.err.println("inferd: cannot load a model: " + e.getMessage());
            return 1;
        } catch (IllegalStateException e) {
            System.err.println("inferd: cannot listen on " + host + ":" + port + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    /** Adds each {@code --model} to the catalog when it is not listed, and loads it. */
    private void preload(CloudDeployment cloud) throws InterruptedException {
        for (String arg : models) {
            ModelSpec spec = Files.isRegularFile(Path.of(arg))
                    ? new ModelSpec(ModelResolver.idOf(Path.of(arg)), Path.of(arg).toAbsolutePath().toString(), null)
                    : ModelSpec.slug(arg);
            if (cloud.catalog().model(spec.id()).isEmpty()) cloud.catalog().add(spec);
            ModelPool pool = cloud.pool();
            long deadline = System.nanoTime() + Duration.ofHours(24).toNanos();
            while (true) {
                try (var use = pool.use(spec.id())) {
                    break;
                } catch (ApiError e) {
                    if (!"model_loading".equals(e.reason()) || System.nanoTime() > deadline) throw e;
                }
            }
            System.out.println("inferd: model " + spec.id() + " loaded");
        }
    }

    /** SIGHUP re-reads the catalog and the config file's models, as POST /admin/v1/reload does. */
    private static void reloadOnHangUp(CloudDeployment cloud) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("HUP"), signal -> {
                try {
                    cloud.reload();
                    System.out.println("inferd: reloaded: " + cloud.catalog().models().size() + " models listed");
                } catch (Exception e) {
                    System.err.println("inferd: reload failed: " + e.getMessage());
                }
            });
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            System.err.println("inferd: SIGHUP is not available here (" + e.getMessage() + "); use POST /admin/v1/reload");
        }
    }

    /** "10s", "500ms", "2m", or plain seconds. */
    static Duration parseDuration(String text) {
        String s = text.strip().toLowerCase(Locale.ROOT);
        try {
            if (s.endsWith("ms")) return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            if (s.endsWith("s")) return Duration.ofMillis(Math.round(Double.parseDouble(s.substring(0, s.length() - 1)) * 1000));
            if (s.endsWith("m")) return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)) * 60);
            return Duration.ofMillis(Math.round(Double.parseDouble(s) * 1000));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (examples: 10s, 500ms, 2m)");
        }
    }

    private static long physicalMemory() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getTotalMemorySize() : Runtime.getRuntime().maxMemory();
    }

    private void printStart(CloudDeployment cloud, Database db, PoolLimits limits) {
        String shownHost = host.contains(":") ? "[" + host + "]" : host;
        String base = "http://" + shownHost + ":" + cloud.port();
        System.out.println("inferd: cloud serving on " + base + "/v1 (API keys required), dashboard " + base
                + "/dashboard, database " + db.describe() + ". Ctrl-C stops.");
        System.out.printf(Locale.ROOT, "inferd: %d models listed, loaded on demand within %.1f GiB%s; requests wait %d ms for a load%n",
                cloud.catalog().models().size(), limits.memoryBudget() / (double) (1L << 30),
                limits.maxLoaded() > 0 ? ", at most " + limits.maxLoaded() + " loaded at once" : "", limits.loadWait().toMillis());
        if (cloud.accounts().listAccounts().isEmpty()) {
            String dbArgs = store.database != null ? " --database '" + store.database + "'"
                    : store.config != null ? " --config " + store.config : "";
            System.out.println("inferd: no account yet. Create the first account and key with:");
            System.out.println("  ./inferd accounts create acme" + dbArgs);
            System.out.println("  ./inferd keys create --account acme --name first" + dbArgs);
            System.out.println("  echo 'a-long-password' | ./inferd accounts add-user --account acme --email you@example.com" + dbArgs);
        }
        System.out.flush();
    }
}
