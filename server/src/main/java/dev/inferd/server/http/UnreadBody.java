package dev.inferd.server.http;

import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;

import java.time.Duration;

/**
 * What becomes of a request body the handler did not read to its end before answering (an early refusal:
 * a 413 from the declared length, a 401, 403, 404 or 429 before the body is looked at). Many clients
 * (Python's http.client and httpx among them) send the whole body before they read anything; a server
 * that answers and closes while the body still comes makes them fail on a reset, never seeing the
 * answer. So, as nginx's lingering close does:
 * <ul>
 *   <li>a remainder of at most {@link #KEEP_ALIVE_DRAIN_BYTES} (or a chunked body that ends within it) is
 *       read before the answer, and the connection stays open for the next request;</li>
 *   <li>a larger one is answered at once with {@code Connection: close}, then read and discarded, up to
 *       {@link ServerOptions.Limits#lingerBytes()} and for at most the read timeout, before the server
 *       closes.</li>
 * </ul>
 * A body whose reading failed (a timeout, too slow, broken framing) is answered with
 * {@code Connection: close} and not read further. A request that asked for {@code 100-continue} and was
 * answered before its body was asked for is left to Jetty, which closes without reading (the client
 * has not sent the body).
 */
final class UnreadBody {

    static final long KEEP_ALIVE_DRAIN_BYTES = 64 * 1024;
    private static final Duration KEEP_ALIVE_DRAIN_TIME = Duration.ofSeconds(1);

    private final Request request;
    private final RequestBody body;
    private final EndPoint endPoint;
    private final ServerOptions.Limits limits;
    private boolean linger;

    UnreadBody(Request request, RequestBody body, EndPoint endPoint, ServerOptions.Limits limits) {
        this.request = request;
        this.body = body;
        this.endPoint = endPoint;
        this.limits = limits;
    }

    /** Just before the response commits: reads a small remainder, or says the connection will close. */
    void beforeAnswer(HttpFields.Mutable responseHeaders) {
        if (body.ended() || !declaresBody()) return;
        if (body.failed()) {
            responseHeaders.put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
            return;
        }
        if (!body.started() && request.getHeaders().contains(HttpHeader.EXPECT, "100-continue")) return;
        long length = request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH);
        if (length < 0 || length - body.arrived() <= KEEP_ALIVE_DRAIN_BYTES) {
            long deadline = System.nanoTime() + KEEP_ALIVE_DRAIN_TIME.toNanos();
            if (body.drain(KEEP_ALIVE_DRAIN_BYTES, deadline, endPoint, limits.readTimeout())) return;
        }
        responseHeaders.put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
        linger = !body.failed();
    }

    /** Once the response is complete: reads and discards what is left of a body answered early, within bounds. */
    void afterAnswer() {
        if (linger) {
            body.drain(limits.lingerBytes(), System.nanoTime() + limits.readTimeout().toNanos(), endPoint,
                    limits.readTimeout());
        }
        body.release();
    }

    private boolean declaresBody() {
        return request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH) > 0
                || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
    }
}
