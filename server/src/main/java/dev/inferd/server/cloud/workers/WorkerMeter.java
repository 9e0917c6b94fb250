package dev.inferd.server.cloud.workers;

import dev.inferd.server.http.ClientGoneException;
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
    private int promptTokens;
    private int completionTokens;
    private int cachedTokens;
    private long audioMillis;
    private boolean cancelled;

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
    public synchronized void tokens(int prompt, int completion, int cached) {
        promptTokens += prompt;
        completionTokens += completion;
        cachedTokens += cached;
    }

    @Override
    public synchronized void audio(long millis) {
        audioMillis += millis;
    }

    @Override
    public synchronized void cancelled() {
        cancelled = true;
    }

    private synchronized WorkerReport snapshot() {
        return new WorkerReport(promptTokens, completionTokens, cachedTokens, audioMillis, cancelled);
    }

    private void report(ServerResponse response) {
        String report = snapshot().encode();
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
