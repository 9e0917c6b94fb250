package dev.inferd.server.http;

import dev.inferd.server.openai.ApiError;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Runs each request Jetty hands over through the front layer (if any) and the API's routes, blocking its
 * virtual thread until the response is written, and sets the connection's idle timeout for each phase
 * of an exchange: the read timeout while the request is read, the write timeout once the response
 * starts ({@link ServerResponse}), the idle timeout between requests. Each request gets its id here, so
 * that the front layer and the routes name it alike, and what a handler left of the body is dealt with
 * once the response is out ({@link UnreadBody}).
 */
final class JettyAdapter extends Handler.Abstract {

    private static final System.Logger LOG = System.getLogger(JettyAdapter.class.getName());

    private final ApiRouter router;
    private final HttpFilter front;
    private final ServerOptions.Limits limits;

    JettyAdapter(ApiRouter router, HttpFilter front, ServerOptions.Limits limits) {
        super(InvocationType.BLOCKING);
        this.router = router;
        this.front = front;
        this.limits = limits;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
        endPoint.setIdleTimeout(limits.readTimeout().toMillis());
        String id = Ids.requestId();
        RequestBody body = new RequestBody(request, limits.minBodyBytesPerSecond());
        UnreadBody unread = new UnreadBody(request, body, endPoint, limits);
        ServerResponse res = new ServerResponse(response, endPoint, limits.writeTimeout(), unread);
        ServerRequest req = new ServerRequest(request, id, body);
        res.header(ApiRouter.REQUEST_ID, id);
        // Anthropic's SDKs read the id from request-id (they show it in errors and on every result).
        if (WireProtocol.of(req.path()) == WireProtocol.ANTHROPIC) res.header(WireProtocol.ANTHROPIC_REQUEST_ID, id);
        try {
            if (front == null) {
                router.handle(req, res);
            } else {
                front.filter(req, res, () -> router.handle(req, res));
            }
            unread.afterAnswer();
            callback.succeeded();
        } catch (ClientGoneException e) {
            // Quiet: Jetty logs an EofException at debug level only, and aborts the connection.
            body.release();
            callback.failed(new EofException(e));
        } catch (Throwable e) {
            body.release();
            failed(id, req, res, callback, e);
        } finally {
            endPoint.setIdleTimeout(limits.idleTimeout().toMillis());
        }
        return true;
    }

    /** A fault in the front layer: a 500 naming the request's id when the response has not started, else the connection is aborted. */
    private static void failed(String id, ServerRequest req, ServerResponse res, Callback callback, Throwable e) {
        LOG.log(System.Logger.Level.ERROR, "request " + id + " (" + req.method() + " " + req.path() + ") failed", e);
        if (res.isSent()) {
            callback.failed(e);
            return;
        }
        try {
            JsonExchange.sendError(res, ApiError.internal(id), WireProtocol.of(req.path()));
            callback.succeeded();
        } catch (RuntimeException again) {
            callback.failed(e);
        }
    }
}
