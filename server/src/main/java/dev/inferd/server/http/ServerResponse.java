package dev.inferd.server.http;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The response to one request: status and headers until it is committed, then a body written in one
 * go ({@link #send}) or as a stream ({@link #outputStream}). Every write blocks the request's (virtual)
 * thread. A write that cannot finish within the write timeout (a client that stopped reading), or that
 * fails, throws {@link ClientGoneException}.
 *
 * <p>A layer in front of the routes may set a {@linkplain #beforeCompletion barrier} that runs once before the
 * response can be complete on the wire: before {@link #send} writes, before the body stream's {@code close}
 * ends it, or earlier when a stream's writer calls {@link #settle} before its final event. The hosted gateway
 * commits the request's usage record there, so that no client holds a whole answer whose record is not
 * durable. The routes need not know: {@code send} and {@code close} settle on their own, and a stream's writer
 * only calls {@code settle} before its last event (the usage chunk, {@code [DONE]}, a completed event).
 */
public final class ServerResponse {

    private final Response response;
    private final EndPoint endPoint;
    private final Duration writeTimeout;
    private final UnreadBody unreadBody;
    private OutputStream out;
    private boolean writing;
    private Runnable barrier;
    private boolean settled;

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

    /**
     * Runs {@code barrier} once before this response can be complete (see the class comment). What it throws
     * comes out of the call that settles: before {@code send}, the response may still become an error.
     */
    public void beforeCompletion(Runnable barrier) {
        this.barrier = barrier;
    }

    /**
     * The response is about to be complete: runs the barrier, if any, unless it ran already. A stream's writer calls
     * this before its final event; {@code send} and the body stream's {@code close} call it themselves.
     */
    public void settle() {
        if (settled) return;
        settled = true;
        if (barrier != null) barrier.run();
    }

    /** Sends the whole body (with its {@code Content-Length}) and ends the response. */
    public void send(byte[] body) {
        settle();
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
        settle();
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
     * {@code close} settles the response, then ends it.
     */
    public OutputStream outputStream() {
        if (out == null) {
            startWriting();
            out = new SettlingStream(Content.Sink.asOutputStream(response));
        }
        return out;
    }

    /** The body stream: its {@code close}, which ends the response, settles first. */
    private final class SettlingStream extends FilterOutputStream {
        SettlingStream(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            settle();
            out.close();
        }
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
