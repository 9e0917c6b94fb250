package dev.inferd.app;

import dev.inferd.app.models.ModelException;
import dev.inferd.app.models.ModelResolver;
import dev.inferd.server.cloud.catalog.ModelSpec;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.pool.ModelPool;
import dev.inferd.server.pool.PoolLimits;
import dev.inferd.server.store.Database;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

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
    @Mixin
    StoreOptions store;

    @Mixin
    RedisOption redis;

    @Option(names = "--model", paramLabel = "<slug|file.gguf>",
            description = "a catalog slug or a model file to add to the catalog (when not listed) and load at start; repeatable")
    List<String> models = new ArrayList<>();

    /**
     * Refused with a reason, rather than picocli's "unknown option": under cloud, models load and unload on
     * demand within one memory budget, and a draft would have to follow its target in both.
     */
    @Option(names = "--draft", hidden = true, paramLabel = "<slug|file.gguf>")
    String draft;

    @Mixin
    ServerOptionsMixin server;

    @Mixin
    ModelOptionsMixin modelOptions;

    @Mixin
    PoolOptionsMixin poolOptions;

    @Mixin
    HostedProcess process;

    @Override
    public Integer call() {
        String refusedDraft = draft == null ? null
                : "--draft is not supported under cloud (models load and unload on demand there, and a draft model would "
                + "have to follow its target); serve a model with a draft by `inferd serve --model BIG --draft SMALL`. "
                + "Prompt lookup speculation is on for every model of the catalog";
        String problem = HostedProcess.firstProblem(refusedDraft, server.problem(), modelOptions.problem(), poolOptions.problem());
        return process.run(problem, store, redis, null, server, ServeCommand.DEFAULT_PORT, this::serve);
    }

    private void serve(Database db, HostedProcess.Settings settings) throws InterruptedException {
        try (CloudDeployment cloud = CloudDeployment.withCatalog(server.host, server.port(ServeCommand.DEFAULT_PORT),
                server.serverOptions(), db, settings.config(), Clock.systemUTC(), poolOptions.catalog(modelOptions, server, store))) {
            preload(cloud);
            reloadOnHangUp(cloud);
            printStart(cloud, db, poolOptions.poolLimits());
            process.serveUntilStopped(cloud::drain, cloud);
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
                    if ("model_loading".equals(e.reason()) && System.nanoTime() <= deadline) continue;
                    throw new ModelException("cannot load a model: " + e.getMessage(), e);
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

    private void printStart(CloudDeployment cloud, Database db, PoolLimits limits) {
        String base = "http://" + server.urlHost() + ":" + cloud.port();
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
