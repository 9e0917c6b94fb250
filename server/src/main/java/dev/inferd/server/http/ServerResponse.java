package dev.inferd.server.http;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The response to one request: status and headers until it is committed, then a body written in one
 * go ({@link #send}) or as a stream ({@link #outputStream}). Every write blocks the request's (virtual)
 * thread. A write that cannot finish within the write timeout (a client that stopped reading), or that
 * fails, throws {@link ClientGoneException}.
 */
public final class ServerResponse {

    private final Response response;
    private final EndPoint endPoint;
    private final Duration writeTimeout;
    private final UnreadBody unreadBody;
    private OutputStream out;
    private boolean writing;

    ServerResponse(Response response, EndPoint endPoint, Duration writeTimeout, UnreadBody unreadBody) {
        this.response = response;
        this.endPoint = endPoint;
        this.writeTimeout = writeTimeout;
        this.unreadBody = unreadBody;
    }

    public void status(int status) {
        response.setStatus(status);
    }

    public int status() {
        return response.getStatus();
    }

    /** Sets a header, replacing an earlier value; {@code Set-Cookie} adds one more. */
    public void header(String name, String value) {
        if (HttpHeader.SET_COOKIE.is(name)) {
            response.getHeaders().add(name, value);
        } else {
            response.getHeaders().put(name, value);
        }
    }

    /** The header's value as set so far, or null. */
    public String header(String name) {
        return response.getHeaders().get(name);
    }

    /** True once the status and headers went out: the response can no longer change. */
    public boolean isSent() {
        return response.isCommitted();
    }

    /** Sends the whole body (with its {@code Content-Length}) and ends the response. */
    public void send(byte[] body) {
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        startWriting();
        try (Blocker.Callback done = Blocker.callback()) {
            response.write(true, ByteBuffer.wrap(body), done);
            done.block();
        } catch (IOException | RuntimeException e) {
            throw new ClientGoneException(e);
        }
    }

    /** Ends the response with no body (a redirect, or a HEAD request's answer with the headers GET would send). */
    public void send() {
        if (!response.getHeaders().contains(HttpHeader.CONTENT_LENGTH)) {
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, 0L);
        }
        startWriting();
        try (Blocker.Callback done = Blocker.callback()) {
            response.write(true, null, done);
            done.block();
        } catch (IOException | RuntimeException e) {
            throw new ClientGoneException(e);
        }
    }

    /**
     * The body as a stream: each {@code flush} sends what was written at once (server-sent events);
     * {@code close} ends the response.
     */
    public OutputStream outputStream() {
        if (out == null) {
            startWriting();
            out = Content.Sink.asOutputStream(response);
        }
        return out;
    }

    /**
     * Before the first write, what the handler left of the request body is dealt with ({@link UnreadBody}).
     * From the first write on, the connection's idle timeout is the write timeout: a write blocked that
     * long fails, and so does the request (its generation is cancelled).
     */
    private void startWriting() {
        if (!writing) {
            writing = true;
            unreadBody.beforeAnswer(response.getHeaders());
            endPoint.setIdleTimeout(writeTimeout.toMillis());
        }
    }
}
