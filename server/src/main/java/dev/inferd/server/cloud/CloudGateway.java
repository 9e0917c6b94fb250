package dev.inferd.server.cloud;

import dev.inferd.server.cloud.auth.Authenticator;
import dev.inferd.server.cloud.auth.Principal;
import dev.inferd.server.cloud.ratelimit.RateDecision;
import dev.inferd.server.cloud.ratelimit.RateLimiter;
import dev.inferd.server.cloud.ratelimit.RateLimits;
import dev.inferd.server.cloud.usage.Pricing;
import dev.inferd.server.cloud.usage.UsageMeter;
import dev.inferd.server.cloud.usage.UsageWriter;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.http.RequestHook;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ModelList;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.UsageStore;
import dev.inferd.server.http.HttpFilter;
import dev.inferd.server.http.ServerRequest;
import dev.inferd.server.http.ServerResponse;

import java.lang.System.Logger.Level;
import java.time.Clock;

/**
 * The hosted deployment's layer in front of the API's routes. Every {@code /v1} request must carry a valid key
 * (401 otherwise), within its scopes (403), within its rate limit (429, with the {@code x-ratelimit-*} headers
 * on every response); what passes goes on to the same routes as {@code serve}, and every request of a known key
 * leaves a usage record, written before the request's thread moves on. {@code /admin/v1/} and
 * {@code /dashboard} are answered here too.
 */
public final class CloudGateway implements HttpFilter, AutoCloseable {

    static final String LIMIT_REQUESTS = "x-ratelimit-limit-requests";
    static final String REMAINING_REQUESTS = "x-ratelimit-remaining-requests";
    static final String RESET_REQUESTS = "x-ratelimit-reset-requests";
    private static final System.Logger LOG = System.getLogger(CloudGateway.class.getName());

    private final Authenticator authenticator;
    private final RateLimiter limiter = new RateLimiter();
    private final RateLimits limits;
    private final UsageWriter usage;
    private final Pricing pricing;
    private final ModelRegistry models;
    private final Clock clock;
    private final CloudRoute admin;
    private final CloudRoute dashboard;

    /**
     * @param admin answers {@code /admin/...}, or null for 404s there
     * @param dashboard answers {@code /dashboard...}, or null
     */
    public CloudGateway(Database db, CloudConfig config, ModelRegistry models, Clock clock, CloudRoute admin, CloudRoute dashboard) {
        this.authenticator = new Authenticator(db, clock);
        this.limits = config.rateLimits();
        this.usage = new UsageWriter(new UsageStore(db));
        this.pricing = config.pricing();
        this.models = models;
        this.clock = clock;
        this.admin = admin;
        this.dashboard = dashboard;
    }

    @Override
    public void filter(ServerRequest request, ServerResponse response, Runnable chain) {
        String path = request.path();
        if (admin != null && (path.equals("/admin") || path.startsWith("/admin/"))) {
            admin.handle(request, response);
        } else if (dashboard != null && (path.equals("/dashboard") || path.startsWith("/dashboard/"))) {
            dashboard.handle(request, response);
        } else if (path.equals("/v1") || path.startsWith("/v1/")) {
            api(chain, request, response, path);
        } else {
            chain.run();
        }
    }

    private void api(Runnable chain, ServerRequest request, ServerResponse response, String path) {
        long started = System.nanoTime();
        Principal principal;
        try {
            principal = authenticator.authenticate(request.header("Authorization"));
        } catch (ApiError e) {
            CloudHttp.sendError(response, e);
            return;
        }
        String endpoint = Endpoints.of(path);
        var meter = new UsageMeter(principal, endpoint, started, CloudGateway::checkModel);
        try {
            if (!principal.key().scopes().allowsEndpoint(endpoint)) {
                throw Authenticator.forbidden("This API key may not use the " + endpoint + " endpoint (its scopes allow "
                        + String.join(", ", principal.key().scopes().endpoints()) + ").");
            }
            RateDecision decision = limiter.tryAcquire(principal.key().id(),
                    limits.resolve(principal.key().rateLimit(), principal.account().rateLimit()));
            response.header(LIMIT_REQUESTS, Integer.toString(decision.limit()));
            response.header(REMAINING_REQUESTS, Long.toString(decision.remaining()));
            response.header(RESET_REQUESTS, RateDecision.goDuration(decision.resetNanos()));
            if (!decision.allowed()) {
                throw ApiError.busy("Rate limit reached for key " + principal.key().prefix() + "... on requests per second: "
                        + "limit " + decision.limit() + ". Please try again in "
                        + RateDecision.goDuration(decision.retryNanos()) + ".", decision.retryAfterSeconds());
            }
            if (endpoint.equals(Endpoints.MODELS) && request.method().equals("GET")) {
                models(principal, path, meter, response, chain);
            } else {
                RequestHook.attach(request, meter);
                chain.run();
            }
        } catch (ApiError e) {
            if (!response.isSent()) CloudHttp.sendError(response, e);
            meter.finished(e.status());
        } finally {
            record(meter, response.status());
        }
    }

    /** {@code GET /v1/models} lists what the key may use; {@code GET /v1/models/{id}} answers 403 for the rest. */
    private void models(Principal principal, String path, UsageMeter meter, ServerResponse response, Runnable chain) {
        if (path.equals("/v1/models")) {
            var visible = models.list().stream().filter(m -> principal.key().scopes().allowsModel(m.id())).toList();
            CloudHttp.sendJson(response, 200, ModelList.of(visible));
            meter.finished(200);
        } else {
            meter.model(path.substring("/v1/models/".length()));
            chain.run();
        }
    }

    private static void checkModel(Principal principal, String model) {
        if (!principal.key().scopes().allowsModel(model)) {
            throw Authenticator.forbidden("This API key may not use the model `" + model + "`.");
        }
    }

    /** Returns once the record is committed (with others that end meanwhile: {@link UsageWriter}). */
    private void record(UsageMeter meter, int responseStatus) {
        try {
            usage.write(meter.record(pricing, responseStatus, clock.millis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.log(Level.ERROR, "interrupted while recording usage");
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "could not record usage: " + e.getMessage(), e);
        }
    }

    /** Writes the usage records still queued. */
    @Override
    public void close() {
        usage.close();
    }
}
