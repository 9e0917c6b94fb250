package dev.inferd.server.cloud;

import dev.inferd.server.anthropic.AnthropicModelList;
import dev.inferd.server.cloud.auth.Authenticator;
import dev.inferd.server.cloud.auth.OperatorToken;
import dev.inferd.server.cloud.auth.Principal;
import dev.inferd.server.cloud.ratelimit.RateDecision;
import dev.inferd.server.cloud.ratelimit.RateLimiter;
import dev.inferd.server.cloud.ratelimit.RateLimiters;
import dev.inferd.server.cloud.ratelimit.RateLimits;
import dev.inferd.server.cloud.usage.Pricing;
import dev.inferd.server.cloud.usage.UsageMeter;
import dev.inferd.server.cloud.usage.UsageWriter;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.http.RequestHook;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ModelList;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.UsageRecord;
import dev.inferd.server.store.UsageStore;
import dev.inferd.server.http.HttpFilter;
import dev.inferd.server.http.ServerRequest;
import dev.inferd.server.http.ServerResponse;

import java.lang.System.Logger.Level;
import java.time.Clock;

/**
 * The hosted deployment's layer in front of the API's routes. Every {@code /v1} request must present one valid key
 * (401 otherwise, also for ambiguous credentials), within its rate limit (429) and its scopes (403), with the
 * {@code x-ratelimit-*} headers on every response of a known key (the limit holds across every gateway on one
 * PostgreSQL or Redis: {@link RateLimiters}); what passes goes on to the same routes as
 * {@code serve}. {@code /admin/v1/} and {@code /dashboard} are answered here too, and {@code /metrics} wants the
 * operator token.
 *
 * <p>Billing: a request's usage record is committed before its answer can be complete on the wire. The gateway
 * sets a {@linkplain ServerResponse#beforeCompletion barrier} on the response that writes the record and waits for
 * its commit (shared with others: {@link UsageWriter}); the response runs it before its final bytes, whichever
 * route sends them. A client that leaves after the commit gets its record corrected (499). Refusals (403, 429)
 * are counted per key and minute instead, without waiting.
 */
public final class CloudGateway implements HttpFilter, AutoCloseable {

    static final String LIMIT_REQUESTS = "x-ratelimit-limit-requests";
    static final String REMAINING_REQUESTS = "x-ratelimit-remaining-requests";
    static final String RESET_REQUESTS = "x-ratelimit-reset-requests";
    private static final String METRICS = "/metrics";
    private static final System.Logger LOG = System.getLogger(CloudGateway.class.getName());

    private final Authenticator authenticator;
    private final RateLimiter limiter;
    private final RateLimits limits;
    private final UsageStore usageStore;
    private final UsageWriter usage;
    private final Pricing pricing;
    private final ModelRegistry models;
    private final Clock clock;
    private final OperatorToken operatorToken;
    private final CloudRoute admin;
    private final CloudRoute dashboard;

    /**
     * @param operatorToken opens {@code /metrics} (and the admin API, which checks it itself)
     * @param admin answers {@code /admin/...}, or null for 404s there
     * @param dashboard answers {@code /dashboard...}, or null
     */
    public CloudGateway(Database db, CloudConfig config, ModelRegistry models, Clock clock, OperatorToken operatorToken,
                        CloudRoute admin, CloudRoute dashboard) {
        this.authenticator = new Authenticator(db, clock);
        this.limiter = RateLimiters.perSecond(db, config.redis());
        this.limits = config.rateLimits();
        this.usageStore = new UsageStore(db);
        this.usage = new UsageWriter(usageStore);
        this.pricing = config.pricing();
        this.models = models;
        this.clock = clock;
        this.operatorToken = operatorToken;
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
        } else if (path.equals(METRICS)) {
            try {
                operatorToken.check(request, "/metrics");
            } catch (ApiError e) {
                CloudHttp.sendError(response, e);
                return;
            }
            chain.run();
        } else {
            chain.run();
        }
    }

    private void api(Runnable chain, ServerRequest request, ServerResponse response, String path) {
        long started = System.nanoTime();
        Principal principal;
        try {
            principal = authenticator.authenticate(request);
        } catch (ApiError e) {
            CloudHttp.sendError(request, response, e);
            return;
        }
        String endpoint = Endpoints.of(path);
        var meter = new UsageMeter(principal, endpoint, started, CloudGateway::checkModel);
        response.beforeCompletion(() -> commitBeforeAnswer(meter, response.status()));
        try {
            // the limit first: a refusal for scope counts against it like any other request
            RateDecision decision = limiter.tryAcquire(principal.key().id(),
                    limits.resolve(principal.key().rateLimit(), principal.account().rateLimit()));
            response.header(LIMIT_REQUESTS, Integer.toString(decision.limit()));
            response.header(REMAINING_REQUESTS, Long.toString(decision.remaining()));
            response.header(RESET_REQUESTS, RateDecision.goDuration(decision.resetNanos()));
            if (!decision.allowed()) {
                meter.refused(UsageMeter.Refusal.RATE_LIMITED);
                throw ApiError.busy("Rate limit reached for key " + principal.key().prefix() + "... on requests per second: "
                        + "limit " + decision.limit() + ". Please try again in "
                        + RateDecision.goDuration(decision.retryNanos()) + ".", decision.retryAfterSeconds());
            }
            if (!principal.key().scopes().allowsEndpoint(endpoint)) {
                meter.refused(UsageMeter.Refusal.FORBIDDEN);
                throw Authenticator.forbidden("This API key may not use the " + endpoint + " endpoint (its scopes allow "
                        + String.join(", ", principal.key().scopes().endpoints()) + ").");
            }
            if (endpoint.equals(Endpoints.MODELS) && request.method().equals("GET")) {
                models(principal, request, meter, response, chain);
            } else {
                RequestHook.attach(request, meter);
                chain.run();
            }
        } catch (ApiError e) {
            if (!response.isSent()) CloudHttp.sendError(request, response, e);
            meter.finished(e.status());
        } finally {
            recordAfterAnswer(meter, response.status());
        }
    }

    /** {@code GET /v1/models} lists what the key may use; {@code GET /v1/models/{id}} answers 403 for the rest. */
    private void models(Principal principal, ServerRequest request, UsageMeter meter, ServerResponse response,
                        Runnable chain) {
        String path = request.path();
        if (path.equals("/v1/models")) {
            var visible = models.list().stream().filter(m -> principal.key().scopes().allowsModel(m.id())).toList();
            CloudHttp.sendJson(response, 200, request.header("anthropic-version") != null
                    ? AnthropicModelList.of(visible) : ModelList.of(visible));
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

    /**
     * The response's barrier: commits the request's record (with the others of its group commit) before its answer
     * can be complete; a refusal is only counted. Throws a 503 when the record cannot be committed: the answer is
     * then withheld (an error instead of the body, or an error event instead of a stream's end).
     */
    private void commitBeforeAnswer(UsageMeter meter, int status) {
        if (meter.isWritten()) return;
        if (meter.refusal() != null) {
            usage.countRefusal(meter.refusalCount(clock.millis()));
            meter.written(null);
            return;
        }
        UsageRecord record = meter.record(pricing, status, clock.millis());
        try {
            usage.write(record);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            meter.withheld();
            throw ApiError.usageNotRecorded();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "could not record usage, answer withheld: " + e.getMessage(), e);
            meter.withheld();
            throw ApiError.usageNotRecorded();
        }
        meter.written(record);
    }

    /**
     * After the response: writes the record of a request that ended without settling (a client that left before
     * any answer), or corrects the one committed when the request ended otherwise (its client left during the last
     * bytes: 499).
     */
    private void recordAfterAnswer(UsageMeter meter, int responseStatus) {
        try {
            if (!meter.isWritten()) {
                commitBeforeAnswer(meter, responseStatus);
                return;
            }
            UsageRecord committed = meter.committed();
            if (committed == null) return;
            UsageRecord last = meter.record(pricing, responseStatus, clock.millis());
            if (!sameCharge(committed, last)) usageStore.replace(last);
        } catch (ApiError e) {
            LOG.log(Level.ERROR, "could not record the usage of a request that was not answered");
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "could not correct a usage record: " + e.getMessage(), e);
        }
    }

    private static boolean sameCharge(UsageRecord a, UsageRecord b) {
        return a.status() == b.status() && a.promptTokens() == b.promptTokens()
                && a.completionTokens() == b.completionTokens() && a.cachedTokens() == b.cachedTokens()
                && a.audioMillis() == b.audioMillis() && java.util.Objects.equals(a.model(), b.model());
    }

    /** Writes the usage records still queued; lets go of the rate limit store and the key cache. */
    @Override
    public void close() {
        usage.close();
        limiter.close();
        authenticator.close();
    }
}
