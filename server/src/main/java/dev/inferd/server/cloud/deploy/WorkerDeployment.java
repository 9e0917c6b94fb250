package dev.inferd.server.cloud.deploy;

import dev.inferd.server.cloud.CloudConfig;
import dev.inferd.server.cloud.catalog.DeploymentCatalog;
import dev.inferd.server.cloud.workers.WorkerGuard;
import dev.inferd.server.cloud.workers.WorkerHeartbeat;
import dev.inferd.server.http.InFlight;
import dev.inferd.server.http.InferdServer;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.http.Readiness;
import dev.inferd.server.http.ServerOptions;
import dev.inferd.server.http.SpeechModels;
import dev.inferd.server.pool.ModelPool;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.ResponseTable;
import dev.inferd.server.store.WorkerStore;

import java.time.Clock;
import java.time.Duration;

/**
 * {@code inferd worker} put together: the deployment's catalog served on demand within a memory budget (as
 * {@code cloud} serves it), behind {@link WorkerGuard} (gateways only), registered in the database by a
 * {@link WorkerHeartbeat}. No keys, limits or usage here: the gateway in front does that.
 */
public final class WorkerDeployment implements AutoCloseable {

    /**
     * How the worker makes itself known.
     *
     * @param id its name in the registry, unique in the deployment
     * @param address the base URL gateways reach it at; null for http://HOST:PORT as it listens
     * @param secret the shared secret gateways send
     * @param heartbeat how often the registration is renewed
     */
    public record Registration(String id, String address, String secret, Duration heartbeat) {
    }

    private final InferdServer server;
    private final ModelPool pool;
    private final DeploymentCatalog catalog;
    private final InFlight inFlight;
    private final WorkerHeartbeat heartbeat;

    private WorkerDeployment(InferdServer server, ModelPool pool, DeploymentCatalog catalog, InFlight inFlight,
                             WorkerHeartbeat heartbeat) {
        this.server = server;
        this.pool = pool;
        this.catalog = catalog;
        this.inFlight = inFlight;
        this.heartbeat = heartbeat;
    }

    public static WorkerDeployment start(String host, int port, ServerOptions options, Database db, CloudConfig config,
                                         Clock clock, CloudDeployment.Catalog models, Registration registration) {
        var catalog = new DeploymentCatalog(db, models.opener(), clock, config.models());
        var pool = new ModelPool(catalog, models.limits());
        catalog.onRemoved(pool::unload);
        var registry = new ModelRegistry();
        registry.onDemand(pool);
        var speech = new SpeechModels();
        speech.onDemand(pool);
        var inFlight = new InFlight();
        var heartbeatHolder = new WorkerHeartbeat[1];
        Readiness readiness = () -> {
            if (inFlight.draining()) return "draining";
            WorkerHeartbeat beat = heartbeatHolder[0];
            if (beat == null || !beat.registered()) return "not registered in the database";
            return null;
        };
        InferdServer server;
        try {
            // responses kept in the database, as under cloud, so that any worker finds them
            server = InferdServer.startWith(host, port, registry, speech, options.withResponses(new ResponseTable(db)),
                    new InferdServer.Parts(inFlight.around(new WorkerGuard(registration.secret(), inFlight)), null, readiness));
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
        String shownHost = host.contains(":") ? "[" + host + "]" : host;
        String address = registration.address() != null ? registration.address() : "http://" + shownHost + ":" + server.port();
        String id = registration.id() != null ? registration.id() : address.replaceFirst("^https?://", "");
        try {
            heartbeatHolder[0] = new WorkerHeartbeat(new WorkerStore(db), id, address, pool, clock, registration.heartbeat());
        } catch (RuntimeException e) {
            server.stop();
            pool.close();
            throw e;
        }
        return new WorkerDeployment(server, pool, catalog, inFlight, heartbeatHolder[0]);
    }

    public int port() {
        return server.port();
    }

    public ModelPool pool() {
        return pool;
    }

    public DeploymentCatalog catalog() {
        return catalog;
    }

    public WorkerHeartbeat heartbeat() {
        return heartbeat;
    }

    /**
     * Stops taking work: the registration says draining (gateways send nothing new), new requests get a 503 that
     * sends them elsewhere, and the requests under way finish, within {@code timeout}. True when all finished.
     */
    public boolean drain(Duration timeout) throws InterruptedException {
        inFlight.drain();
        heartbeat.drain();
        return inFlight.awaitIdle(timeout);
    }

    @Override
    public void close() {
        heartbeat.close();
        server.stop();
        pool.close();
    }
}
