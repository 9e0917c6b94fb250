package dev.inferd.server.cloud.deploy;

import dev.inferd.server.cloud.CloudConfig;
import dev.inferd.server.cloud.CloudGateway;
import dev.inferd.server.cloud.admin.AdminApi;
import dev.inferd.server.cloud.auth.Accounts;
import dev.inferd.server.cloud.dashboard.Dashboard;
import dev.inferd.server.http.InferdServer;
import dev.inferd.server.http.SpeechModels;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.http.ServerOptions;
import dev.inferd.server.store.Database;

import java.time.Clock;

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
 */
public final class CloudDeployment implements AutoCloseable {

    /** The environment variable that gives the operator token when the config file does not. */
    public static final String OPERATOR_TOKEN_ENV = "INFERD_OPERATOR_TOKEN";

    private final InferdServer server;
    private final Accounts accounts;

    private CloudDeployment(InferdServer server, Accounts accounts) {
        this.server = server;
        this.accounts = accounts;
    }

    public static CloudDeployment start(String host, int port, Database db, CloudConfig config, ModelRegistry models,
                                        Clock clock) {
        var accounts = new Accounts(db, clock);
        String operatorToken = config.operatorToken() != null ? config.operatorToken() : System.getenv(OPERATOR_TOKEN_ENV);
        var admin = new AdminApi(db, accounts, operatorToken);
        var dashboard = new Dashboard(db, accounts, clock);
        var gateway = new CloudGateway(db, config, models, clock, admin, dashboard);
        return new CloudDeployment(InferdServer.start(host, port, models, new SpeechModels(), ServerOptions.defaults(), gateway), accounts);
    }

    public int port() {
        return server.port();
    }

    public Accounts accounts() {
        return accounts;
    }

    @Override
    public void close() {
        server.stop();
    }
}
