package dev.inferd.server.cloud.deploy;

import dev.inferd.server.cloud.CloudConfig;
import dev.inferd.server.cloud.CloudGateway;
import dev.inferd.server.cloud.admin.AdminApi;
import dev.inferd.server.cloud.auth.Accounts;
import dev.inferd.server.cloud.auth.OperatorToken;
import dev.inferd.server.cloud.catalog.CatalogAdmin;
import dev.inferd.server.cloud.catalog.DeploymentCatalog;
import dev.inferd.server.cloud.catalog.ModelOpener;
import dev.inferd.server.cloud.catalog.ModelSpec;
import dev.inferd.server.cloud.dashboard.Dashboard;
import dev.inferd.server.http.InferdServer;
import dev.inferd.server.http.SpeechModels;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.http.ServerOptions;
import dev.inferd.server.pool.ModelPool;
import dev.inferd.server.pool.PoolLimits;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.ResponseTable;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code inferd cloud} put together: the API of {@code serve} behind the gateway (keys, scopes, rate limits,
 * usage), the admin API and the dashboard, on one database.
 *
 * <pre>{@code
 * try (Database db = Database.open(url);
 *      CloudDeployment cloud = CloudDeployment.start("127.0.0.1", 8000, db, config, registry, Clock.systemUTC())) {
 *     ...
 * }
 * }</pre>
 *
 * {@link #withCatalog} serves the deployment's model catalog instead of a fixed registry: models listed in the
 * database, loaded on demand within a memory budget, added and removed at run time.
 */
public final class CloudDeployment implements AutoCloseable {

    /** The environment variable that gives the operator token when the config file does not. */
    public static final String OPERATOR_TOKEN_ENV = "INFERD_OPERATOR_TOKEN";

    /**
     * The model catalog of a deployment.
     *
     * @param configuredModels reads the config file's {@code models} anew on reload; null without a config file
     */
    public record Catalog(ModelOpener opener, PoolLimits limits, Callable<List<ModelSpec>> configuredModels) {
    }

    private final InferdServer server;
    private final CloudGateway gateway;
    private final Accounts accounts;
    private final DeploymentCatalog catalog;
    private final ModelPool pool;
    private final CatalogAdmin catalogAdmin;

    private CloudDeployment(InferdServer server, CloudGateway gateway, Accounts accounts, DeploymentCatalog catalog,
                            ModelPool pool, CatalogAdmin catalogAdmin) {
        this.server = server;
        this.gateway = gateway;
        this.accounts = accounts;
        this.catalog = catalog;
        this.pool = pool;
        this.catalogAdmin = catalogAdmin;
    }

    /** A deployment that serves the models of {@code models}, as they are registered there. */
    public static CloudDeployment start(String host, int port, Database db, CloudConfig config, ModelRegistry models,
                                        Clock clock) {
        var accounts = new Accounts(db, clock);
        var gateway = gateway(db, config, models, clock, accounts, null);
        return new CloudDeployment(InferdServer.start(host, port, models, new SpeechModels(), ServerOptions.defaults().withResponses(new ResponseTable(db)), gateway),
                gateway, accounts, null, null, null);
    }

    /**
     * A deployment that serves its catalog: the database's (the built-in catalog at first), or the config's
     * {@code models} when it has them.
     */
    public static CloudDeployment withCatalog(String host, int port, Database db, CloudConfig config, Clock clock,
                                              Catalog models) {
        var accounts = new Accounts(db, clock);
        var catalog = new DeploymentCatalog(db, models.opener(), clock, config.models());
        var pool = new ModelPool(catalog, models.limits());
        catalog.onRemoved(pool::unload);
        var registry = new ModelRegistry();
        registry.onDemand(pool);
        var speech = new SpeechModels();
        speech.onDemand(pool);
        var admin = new CatalogAdmin(catalog, pool, models.configuredModels());
        var gateway = gateway(db, config, registry, clock, accounts, admin);
        try {
            return new CloudDeployment(InferdServer.start(host, port, registry, speech, ServerOptions.defaults().withResponses(new ResponseTable(db)), gateway),
                    gateway, accounts, catalog, pool, admin);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    private static CloudGateway gateway(Database db, CloudConfig config, ModelRegistry models, Clock clock,
                                        Accounts accounts, CatalogAdmin catalogAdmin) {
        String operatorToken = config.operatorToken() != null ? config.operatorToken() : System.getenv(OPERATOR_TOKEN_ENV);
        var admin = new AdminApi(db, accounts, operatorToken, catalogAdmin);
        var dashboard = new Dashboard(db, accounts, clock);
        return new CloudGateway(db, config, models, clock, new OperatorToken(operatorToken), admin, dashboard);
    }

    public int port() {
        return server.port();
    }

    public Accounts accounts() {
        return accounts;
    }

    /** The model catalog, or null for a deployment started with a fixed registry. */
    public DeploymentCatalog catalog() {
        return catalog;
    }

    /** The loaded models, or null for a deployment started with a fixed registry. */
    public ModelPool pool() {
        return pool;
    }

    /** Re-reads the catalog (and the config file's models), as {@code POST /admin/v1/reload} does. */
    public void reload() throws Exception {
        if (catalogAdmin != null) catalogAdmin.reload();
    }

    @Override
    public void close() {
        server.stop();
        gateway.close();
        if (catalog != null) catalog.close();
        if (pool != null) pool.close();
    }
}
