package dev.inferd.app;

import dev.inferd.app.models.CatalogEntry;
import dev.inferd.app.models.ModelException;
import dev.inferd.app.models.ModelResolver;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;

/** {@code inferd pull <slug>...}: downloads catalog models into {@code $INFERD_HOME/models}. */
@Command(name = "pull", mixinStandardHelpOptions = true,
        description = {
                "Download catalog models into $INFERD_HOME/models (INFERD_HOME defaults to ~/.inferd).",
                "An interrupted download resumes from its .part file. A file is kept only after its size and SHA-256 check.",
                "Environment: HF_TOKEN for gated repositories, INFERD_HF_ENDPOINT for a mirror (default https://huggingface.co)."})
public final class PullCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "<slug>", description = "catalog slugs (`inferd models` lists them)")
    List<String> slugs = List.of();

    private final Function<String, String> env;
    private final PrintStream out;
    private final PrintStream err;

    public PullCommand() {
        this(System::getenv, System.out, System.err);
    }

    PullCommand(Function<String, String> env, PrintStream out, PrintStream err) {
        this.env = env;
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        try {
            ModelResolver resolver = ModelResolver.fromEnvironment(env, err);
            // Every slug is checked before anything downloads: a typo in the third should not wait for the first.
            List<CatalogEntry> entries = slugs.stream().map(resolver.catalog()::require).toList();
            for (CatalogEntry entry : entries) {
                var cached = resolver.store().cached(entry);
                if (cached.isPresent()) {
                    out.println(entry.slug() + ": already downloaded, " + cached.get());
                    continue;
                }
                Path file = pullReportingInterrupts(resolver, entry);
                out.println(entry.slug() + ": " + file);
            }
            return 0;
        } catch (ModelException e) {
            err.println("inferd pull: " + e.getMessage());
            return 1;
        }
    }

    /** Ctrl-C ends the JVM mid-download; the .part stays, and this says how to go on. */
    private Path pullReportingInterrupts(ModelResolver resolver, CatalogEntry entry) {
        Thread hook = new Thread(() -> {
            err.println();
            err.println("inferd pull: interrupted; the partial download " + resolver.store().partFor(entry)
                    + " is kept, run `./inferd pull " + entry.slug() + "` again to resume");
        });
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return resolver.pull(entry);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running already
            }
        }
    }
}
