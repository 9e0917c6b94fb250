package dev.inferd.server.cloud.workers;

import dev.inferd.server.cloud.CloudHttp;
import dev.inferd.server.http.HttpFilter;
import dev.inferd.server.http.InFlight;
import dev.inferd.server.http.ServerRequest;
import dev.inferd.server.http.ServerResponse;
import dev.inferd.server.openai.ApiError;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * A worker's front: only gateways may use it. Every request but the probes ({@code /health}, {@code /ready}) and
 * {@code /metrics} must carry the deployment's shared secret in {@value WorkerProxy#SECRET_HEADER} (compared in
 * constant time); others get a 401. While the worker drains, new requests get a 503 that tells the gateway to go
 * elsewhere at once. A request let through gets a {@link WorkerMeter}: the account the gateway names owns what it
 * stores, and its counts go back to the gateway.
 */
public final class WorkerGuard implements HttpFilter {

    private final byte[] secret;
    private final InFlight inFlight;

    public WorkerGuard(String secret, InFlight inFlight) {
        if (secret == null || secret.length() < 16) {
            throw new IllegalArgumentException("the workers' shared secret must be at least 16 characters");
        }
        this.secret = secret.getBytes(StandardCharsets.UTF_8);
        this.inFlight = inFlight;
    }

    @Override
    public void filter(ServerRequest request, ServerResponse response, Runnable next) {
        String path = request.path();
        if (path.equals("/health") || path.equals("/ready") || path.equals("/metrics")) {
            next.run();
            return;
        }
        String given = request.header(WorkerProxy.SECRET_HEADER);
        if (given == null || request.headerValues(WorkerProxy.SECRET_HEADER).size() != 1
                || !MessageDigest.isEqual(secret, given.getBytes(StandardCharsets.UTF_8))) {
            send(response, new ApiError(401, ApiError.INVALID_REQUEST,
                    "This is an inferd worker: it serves its deployment's gateways only.", null, "not_a_gateway"));
            return;
        }
        if (inFlight.draining()) {
            response.header(WorkerProxy.DRAINING_HEADER, "1");
            send(response, ApiError.noWorker("This worker is shutting down.", 1));
            return;
        }
        // only now, with the secret checked, may the request name the account it acts for
        WorkerMeter.attach(request, response);
        next.run();
    }

    private static void send(ServerResponse response, ApiError e) {
        CloudHttp.sendError(response, e);
    }
}
