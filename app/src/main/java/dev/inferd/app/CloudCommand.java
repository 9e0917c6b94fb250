package dev.inferd.app;

import dev.inferd.app.models.ModelException;
import dev.inferd.app.models.ModelResolver;
import dev.inferd.app.models.ResolvedModel;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.gguf.GGUFFormatException;
import dev.inferd.server.cloud.CloudConfig;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.openai.EngineRequests;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.StoreException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;

/** {@code inferd cloud}: the API of {@code serve} behind API keys, rate limits and usage metering, with its dashboard. */
@Command(name = "cloud", mixinStandardHelpOptions = true,
        description = {
                "Serve the OpenAI API as a hosted deployment: every /v1 request needs Authorization: Bearer <key>;",
                "per-key scopes, rate limits (429), usage and cost records; the admin API under /admin/v1/ and the",
                "dashboard at /dashboard. The database is an SQLite file under $INFERD_HOME unless --database says otherwise."})
public final class CloudCommand implements Callable<Integer> {
    private static final java.util.logging.Logger JETTY_LOG = java.util.logging.Logger.getLogger("org.eclipse.jetty");

    @Mixin
    StoreOptions store;

    @Option(names = "--model", paramLabel = "<slug|file.gguf>",
            description = "a catalog slug or a GGUF file to serve; repeatable (none: the API answers but lists no model)")
    List<String> models = new ArrayList<>();

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to listen on (default: ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--port", defaultValue = "8000", description = "port to listen on (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--ctx", defaultValue = "0", paramLabel = "N", description = "context length in tokens (default: the model's)")
    int contextLength;

    @Option(names = "--threads", defaultValue = "0", paramLabel = "N", description = "compute threads (default: all cores)")
    int threads;

    @Option(names = "--offline", description = "never download: use cached catalog models or files only")
    boolean offline;

    @Override
    public Integer call() {
        if (port < 0 || port > 65535 || threads < 0 || contextLength < 0) {
            System.err.println("inferd: --port, --threads and --ctx must be positive (--port at most 65535)");
            return 2;
        }
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
        CloudConfig config;
        try {
            config = store.readConfig();
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("inferd: cannot read --config " + store.config + ": " + e.getMessage());
            return 2;
        }
        List<TextGenerator> loaded = new ArrayList<>();
        ModelRegistry registry = new ModelRegistry();
        try (Database db = Database.open(store.databaseUrl(config))) {
            load(registry, loaded);
            try (CloudDeployment cloud = CloudDeployment.start(host, port, db, config, registry, Clock.systemUTC())) {
                printStart(cloud, db);
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
        } catch (ModelException | GGUFFormatException | UnsupportedOperationException | IOException e) {
            System.err.println("inferd: cannot load a model: " + e.getMessage());
            return 1;
        } catch (IllegalStateException e) {
            System.err.println("inferd: cannot listen on " + host + ":" + port + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } finally {
            loaded.forEach(TextGenerator::close);
        }
    }

    private void load(ModelRegistry registry, List<TextGenerator> loaded) throws IOException {
        if (models.isEmpty()) return;
        ModelResolver resolver = ModelResolver.fromEnvironment();
        for (String arg : models) {
            ResolvedModel model = resolver.resolveModel(arg, offline);
            String owner = model.entry().isPresent() ? model.ownedBy() : null;
            var generator = LocalTextGenerator.open(model.file(), new LocalTextGenerator.Options(model.id(), owner, contextLength)
                    .withMaxChoices(EngineRequests.MAX_CHOICES).withThreads(threads)
                    .withCopyCache(ModelEvents.copyCacheDirectory()).withAfterLoad(true),
                    new ModelEvents(System.out));
            loaded.add(generator);
            registry.ready(model.id(), generator);
            System.out.println("inferd: model " + model.id() + " loaded");
        }
    }

    private void printStart(CloudDeployment cloud, Database db) {
        String shownHost = host.contains(":") ? "[" + host + "]" : host;
        String base = "http://" + shownHost + ":" + cloud.port();
        System.out.println("inferd: cloud serving on " + base + "/v1 (API keys required), dashboard " + base
                + "/dashboard, database " + db.describe() + ". Ctrl-C stops.");
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
