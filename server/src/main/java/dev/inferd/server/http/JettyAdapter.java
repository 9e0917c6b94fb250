package dev.inferd.server.http;

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
 * starts ({@link ServerResponse}), the idle timeout between requests.
 */
final class JettyAdapter extends Handler.Abstract {

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
        ServerResponse res = new ServerResponse(response, endPoint, limits.writeTimeout());
        ServerRequest req = new ServerRequest(request);
        try {
            if (front == null) {
                router.handle(req, res);
            } else {
                front.filter(req, res, () -> router.handle(req, res));
            }
            callback.succeeded();
        } catch (ClientGoneException e) {
            // Quiet: Jetty logs an EofException at debug level only, and aborts the connection.
            callback.failed(new EofException(e));
        } catch (Throwable e) {
            callback.failed(e);
        } finally {
            endPoint.setIdleTimeout(limits.idleTimeout().toMillis());
        }
        return true;
    }
}
