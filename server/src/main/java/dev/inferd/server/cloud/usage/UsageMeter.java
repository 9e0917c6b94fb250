package dev.inferd.server.cloud.usage;

import dev.inferd.server.cloud.auth.Principal;
import dev.inferd.server.http.RequestCounts;
import dev.inferd.server.http.RequestHook;
import dev.inferd.server.store.RefusedRequests;
import dev.inferd.server.store.RowIds;
import dev.inferd.server.store.UsageRecord;

/**
 * One request's meter: collects what its handler reports (model, tokens, final status) and makes its usage
 * record, or its refusal's count when the key's scopes or rate limit refused it. Reports come from the request's
 * thread and its generation's thread, hence the synchronisation.
 */
public final class UsageMeter implements RequestHook {

    /** The status recorded for a request whose client left before its response was complete (nginx's convention). */
    public static final int CLIENT_CLOSED = 499;

    /** Why the gateway refused a request before any work: counted per key and minute, not recorded one by one. */
    public enum Refusal { FORBIDDEN, RATE_LIMITED }

    private final Principal principal;
    private final String endpoint;
    private final long startNanos;
    private final ModelScope scope;
    private final String recordId = RowIds.next("use");
    private String model;
    private final RequestCounts counts = new RequestCounts();
    private int status;
    private Refusal refusal;
    private boolean written;
    private boolean withheld;
    private UsageRecord committed;

    /** Checks a model named by the request against the key's scope; throws a 403 to refuse it. */
    @FunctionalInterface
    public interface ModelScope {
        void check(Principal principal, String model);
    }

    public UsageMeter(Principal principal, String endpoint, long startNanos, ModelScope scope) {
        this.principal = principal;
        this.endpoint = endpoint;
        this.startNanos = startNanos;
        this.scope = scope;
    }

    @Override
    public String owner() {
        return principal.account().id();
    }

    @Override
    public synchronized void model(String model) {
        this.model = model;
        try {
            scope.check(principal, model);
        } catch (RuntimeException refused) {
            refusal = Refusal.FORBIDDEN;
            throw refused;
        }
    }

    @Override
    public void tokens(int prompt, int completion, int cached) {
        counts.tokens(prompt, completion, cached);
    }

    @Override
    public void audio(long millis) {
        counts.audio(millis);
    }

    @Override
    public void cancelled() {
        counts.cancelled();
    }

    @Override
    public synchronized void finished(int status) {
        this.status = status;
    }

    /** The gateway refused the request (scope or rate limit). */
    public synchronized void refused(Refusal why) {
        refusal = why;
    }

    /** Why the request was refused, or null when it was not. */
    public synchronized Refusal refusal() {
        return refusal;
    }

    /** The refusal as one count in its key's minute. */
    public synchronized RefusedRequests refusalCount(long nowMillis) {
        if (refusal == null) throw new IllegalStateException("the request was not refused");
        boolean rateLimited = refusal == Refusal.RATE_LIMITED;
        return new RefusedRequests(principal.account().id(), principal.key().id(), RefusedRequests.minuteOf(nowMillis),
                rateLimited ? 0 : 1, rateLimited ? 1 : 0);
    }

    /**
     * The record of this request, ended with {@code fallbackStatus} when no handler reported one. Every record of
     * one meter has the same id: a later one replaces the one committed.
     */
    public synchronized UsageRecord record(Pricing pricing, int fallbackStatus, long nowMillis) {
        int finalStatus = withheld ? 503 : status != 0 ? status : fallbackStatus;
        // A stream whose client left has sent its 200 already; the record says it was cut short.
        RequestCounts.Snapshot c = counts.snapshot();
        if (c.cancelled() && finalStatus < 400) finalStatus = CLIENT_CLOSED;
        long latencyMillis = (System.nanoTime() - startNanos) / 1_000_000;
        return new UsageRecord(recordId, principal.account().id(), principal.key().id(), model, endpoint,
                c.promptTokens(), c.completionTokens(), c.cachedTokens(), c.audioMillis(), finalStatus, latencyMillis,
                pricing.cost(model, c.promptTokens(), c.completionTokens(), c.audioMillis()), nowMillis);
    }

    /** Its record could not be committed before its answer, which was withheld: the record says 503. */
    public synchronized void withheld() {
        withheld = true;
    }

    /** True once the request's record (or its refusal's count) was handed to the writer. */
    public synchronized boolean isWritten() {
        return written;
    }

    /** The record was committed: {@code record}, or null for a refusal's count. */
    public synchronized void written(UsageRecord record) {
        written = true;
        committed = record;
    }

    /** The record committed, or null. */
    public synchronized UsageRecord committed() {
        return committed;
    }
}
