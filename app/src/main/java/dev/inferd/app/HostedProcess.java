package dev.inferd.app;

import dev.inferd.app.models.ModelException;
import dev.inferd.server.cloud.CloudConfig;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.StoreException;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * How a hosted command ({@code cloud}, {@code gateway}, {@code worker}) starts and stops: its options checked, its
 * settings read (the config file with {@code --redis}, and the workers' shared secret where it takes one), its
 * database opened, its deployment served until SIGTERM drains it within {@code --drain-timeout}. Wrong options or
 * unreadable settings exit 2, what keeps the deployment from starting exits 1, each with its reason on stderr.
 */
final class HostedProcess {
    /** Jetty's start-up lines say nothing the command's own line does not; a strong reference keeps the level set. */
    private static final java.util.logging.Logger JETTY_LOG = java.util.logging.Logger.getLogger("org.eclipse.jetty");

    @Option(names = "--drain-timeout", defaultValue = "30s", paramLabel = "DURATION", converter = Durations.Converter.class,
            description = "on SIGTERM, how long the requests under way may take to finish before the process stops; "
                    + "/ready answers 503 meanwhile (default: ${DEFAULT-VALUE})")
    Duration drainTimeout;

    /** What the command read at start: its settings, and the workers' secret (null for a command that takes none). */
    record Settings(CloudConfig config, String workerSecret) {
    }

    /** The command's own part: starts its deployment on the open database and returns once {@link #serveUntilStopped} does. */
    @FunctionalInterface
    interface Serving {
        void serve(Database db, Settings settings) throws InterruptedException;
    }

    /** The first of {@code problems} that is not null, or null when the options are all right. */
    static String firstProblem(String... problems) {
        return Arrays.stream(problems).filter(Objects::nonNull).findFirst().orElse(null);
    }

    /**
     * Runs the command: {@code problem} (from {@link #firstProblem}) exits 2, as do settings that cannot be read;
     * then {@code serving} runs on the database. {@code secret} is null for a command without the workers' secret.
     */
    int run(String problem, StoreOptions store, RedisOption redis, WorkerSecretOption secret, ServerOptionsMixin server,
            int defaultPort, Serving serving) {
        if (problem != null) return fail(2, problem);
        Settings settings;
        try {
            settings = new Settings(redis.applyTo(store.readConfig()), secret == null ? null : secret.secret());
        } catch (IOException e) {
            return fail(2, "cannot read --config " + store.config + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            return fail(2, e.getMessage());
        }
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
        try (Database db = Database.open(store.databaseUrl(settings.config()))) {
            serving.serve(db, settings);
            return 0;
        } catch (StoreException | ModelException | IllegalArgumentException e) {
            return fail(1, e.getMessage());
        } catch (IllegalStateException e) {
            return fail(1, "cannot listen on " + server.host + ":" + server.port(defaultPort) + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    /** Waits until SIGTERM (or Ctrl-C) has drained {@code deployment} and closed it. */
    void serveUntilStopped(Shutdown.Drain drain, AutoCloseable deployment) throws InterruptedException {
        System.out.flush();
        Shutdown.drainThenClose(drain, deployment, drainTimeout).await();
    }

    private static int fail(int code, String message) {
        System.err.println("inferd: " + message);
        return code;
    }
}
