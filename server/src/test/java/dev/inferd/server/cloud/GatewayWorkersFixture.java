package dev.inferd.server.cloud;

import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.catalog.ModelSpec;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.cloud.deploy.WorkerDeployment;
import dev.inferd.server.cloud.workers.WorkerDirectory;
import dev.inferd.server.cloud.workers.WorkerProxy;
import dev.inferd.server.http.ServerOptions;
import dev.inferd.server.pool.PoolLimits;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.LoadClaims;
import dev.inferd.server.store.TestDatabases;
import dev.inferd.server.store.WorkerStore;
import org.junit.jupiter.api.AfterEach;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The set-up of the tests that route through workers: a gateway and two workers in one JVM on one SQLite database,
 * each worker with its own fake model opener, an account with a key, and everything closed after each test (the
 * clients a test opens too, once it adds them to {@link #open}).
 */
abstract class GatewayWorkersFixture {

    static final String SECRET = "a-shared-secret-for-the-tests";
    static final String OPERATOR = "operator-token-for-tests";
    static final Actor TEST = new Actor("test", "junit");
    private static final PoolLimits ROOMY = new PoolLimits(0, 1L << 40, Duration.ofSeconds(20), 2, Duration.ofSeconds(30));
    private static final java.util.logging.Logger JETTY_LOG = java.util.logging.Logger.getLogger("org.eclipse.jetty");

    static {
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    final MutableClock clock = new MutableClock();
    final HttpClient http = HttpClient.newHttpClient();
    /** Closed after each test, last added first. */
    final List<AutoCloseable> open = new ArrayList<>();
    final List<FakeOpener> openers = new ArrayList<>();
    final List<WorkerDeployment> workers = new ArrayList<>();
    Database db;
    CloudDeployment gateway;
    WorkerDirectory directory;
    String key;
    String accountId;

    /** A gateway and two workers on one database, serving {@code models} (the built-in fake catalog when null). */
    void deploy(List<ModelSpec> models) {
        db = TestDatabases.open(TestDatabases.SQLITE);
        open.add(db);
        var config = new CloudConfig(null, null, OPERATOR, Map.of(), models);
        for (int i = 0; i < 2; i++) {
            var opener = new FakeOpener();
            openers.add(opener);
            var worker = WorkerDeployment.start("127.0.0.1", 0, ServerOptions.defaults(), db, config, clock,
                    new CloudDeployment.Catalog(opener, ROOMY, null),
                    new WorkerDeployment.Registration("w" + i, null, SECRET, Duration.ofMillis(200)));
            workers.add(worker);
            open.add(worker);
        }
        directory = new WorkerDirectory(new WorkerStore(db), new LoadClaims(db), Duration.ofSeconds(2),
                Duration.ofMillis(100));
        open.add(directory);
        var proxy = new WorkerProxy(directory, SECRET, Duration.ofSeconds(10), Duration.ofSeconds(2));
        open.add(proxy);
        gateway = CloudDeployment.gateway("127.0.0.1", 0, ServerOptions.defaults(), db, config, clock,
                new CloudDeployment.Catalog(new FakeOpener(), ROOMY, null), proxy,
                () -> directory.live().isEmpty() ? "no worker is live" : null);
        open.add(gateway);
        var account = gateway.accounts().createAccount("acme", TEST);
        accountId = account.id();
        key = gateway.accounts().createKey(account.id(), KeySpec.named("k"), TEST).secret();
    }

    /** The key of a new account of that name: a second tenant beside {@link #accountId}. */
    String keyOfNewAccount(String name) {
        var account = gateway.accounts().createAccount(name, TEST);
        return gateway.accounts().createKey(account.id(), KeySpec.named("k"), TEST).secret();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open.reversed()) c.close();
    }
}
