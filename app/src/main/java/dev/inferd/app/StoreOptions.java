package dev.inferd.app;

import dev.inferd.app.models.ModelsConfig;
import dev.inferd.server.cloud.CloudConfig;
import dev.inferd.server.cloud.catalog.ModelSpec;
import dev.inferd.server.store.Database;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code --config} and {@code --database}, shared by {@code cloud}, {@code accounts} and {@code keys}. */
final class StoreOptions {
    /** The pool reports its start and stop at INFO; a strong reference keeps the level set. */
    static final java.util.logging.Logger HIKARI_LOG = java.util.logging.Logger.getLogger("com.zaxxer.hikari");

    static {
        HIKARI_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    @Option(names = "--config", paramLabel = "FILE", description = "a JSON settings file (database, rate_limit_rps, operator_token, prices, models)")
    Path config;

    @Option(names = "--database", paramLabel = "URL",
            description = "jdbc:sqlite:FILE or jdbc:postgresql://HOST/DB?user=...&password=... (default: $INFERD_HOME/inferd.db)")
    String database;

    CloudConfig readConfig() throws IOException {
        return config == null ? CloudConfig.empty() : CloudConfig.read(config);
    }

    /** The URL given, else the config's, else the SQLite file under INFERD_HOME. */
    String databaseUrl(CloudConfig settings) {
        if (database != null && !database.isBlank()) return database;
        if (settings.database() != null && !settings.database().isBlank()) return settings.database();
        return Database.sqliteUrl(ModelsConfig.fromEnvironment(System::getenv).home());
    }

    /** The config file's models, read again on each reload; null without {@code --config}. */
    Callable<List<ModelSpec>> configuredModels() {
        return config == null ? null : () -> readConfig().models();
    }

    Database open() throws IOException {
        return Database.open(databaseUrl(readConfig()));
    }
}
