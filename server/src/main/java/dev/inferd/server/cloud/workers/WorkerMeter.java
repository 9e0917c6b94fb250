package dev.inferd.server.cloud.workers;

import dev.inferd.server.http.ClientGoneException;
import dev.inferd.server.http.RequestCounts;
import dev.inferd.server.http.RequestHook;
import dev.inferd.server.http.ServerRequest;
import dev.inferd.server.http.ServerResponse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A worker's hook on one request from a gateway: owns what the request stores as the account the gateway names in
 * {@value WorkerProxy#ACCOUNT_HEADER} (read only behind {@link WorkerGuard}'s secret check), and collects the
 * handler's counts to send back as a {@link WorkerReport} at the response's barrier. Keys, scopes and the usage
 * record stay the gateway's.
 */
final class WorkerMeter implements RequestHook {

    private final String owner;
    private final RequestCounts counts = new RequestCounts();

    private WorkerMeter(String owner) {
        this.owner = owner;
    }

    /** Attaches a meter to a request the guard let through, and its report to the response's barrier. */
    static void attach(ServerRequest request, ServerResponse response) {
        String account = request.header(WorkerProxy.ACCOUNT_HEADER);
        var meter = new WorkerMeter(account == null ? "" : account);
        RequestHook.attach(request, meter);
        response.beforeCompletion(() -> meter.report(response));
    }

    @Override
    public String owner() {
        return owner;
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

    private void report(ServerResponse response) {
        RequestCounts.Snapshot c = counts.snapshot();
        String report = new WorkerReport(c.promptTokens(), c.completionTokens(), c.cachedTokens(), c.audioMillis(),
                c.cancelled()).encode();
        if (!response.isSent()) {
            response.header(WorkerReport.HEADER, report);
            return;
        }
        // an SSE comment in a stream, or more of the leading whitespace of a JSON body: the gateway takes it out
        OutputStream out = response.outputStream();
        try {
            out.write((WorkerReport.LINE_PREFIX + report + "\n\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
        } catch (IOException | RuntimeException e) {
            throw new ClientGoneException(e);
        }
    }
}
