package dev.inferd.server.http;

import io.helidon.common.socket.HelidonSocket;
import io.helidon.http.HttpPrologue;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http1.Http1ConnectionListener;

import java.time.Duration;

/**
 * Tells whether the client of a request is still connected while the server has nothing to write
 * to it yet (a non-streamed generation, or a stream waiting for its first token). A write would
 * show a departed client at once; without one, only a read can see the end of the stream.
 *
 * <p>Helidon has that read built in: {@link HelidonSocket#idle()} starts a background read on the
 * connection that marks it closed on end-of-stream, keeps a byte that does arrive (a pipelined
 * request) for the next real read, and ends as soon as Helidon reads again. Its limit is the
 * socket's read timeout: once that passes with no byte, it reports the connection closed too.
 * So a closed connection is believed only within {@code readTimeout} of the start of the watch;
 * after that this watch cannot tell and says the client is there, and the generation runs on.
 *
 * <p>Helidon does not hand the connection to a handler; {@link #tracker()} does. It is a listener
 * on HTTP/1 requests that Helidon calls on the connection's own thread, which is the thread that
 * then runs the handler, so a thread-local carries the connection across.
 */
final class ClientWatch {

    private static final ThreadLocal<ConnectionContext> CONNECTION = new ThreadLocal<>();
    /** Leaves the idle reader's last timed-out read room to finish before the window closes. */
    private static final Duration MARGIN = Duration.ofMillis(500);

    /** For requests whose connection cannot be watched: the client always seems to be there. */
    static final ClientWatch UNWATCHED = new ClientWatch(null, Duration.ZERO);

    private final HelidonSocket socket;
    private final long windowNanos;
    private long startedNanos;
    private boolean started;

    private ClientWatch(HelidonSocket socket, Duration readTimeout) {
        this.socket = socket;
        this.windowNanos = readTimeout.minus(MARGIN).toNanos();
    }

    /** Registered on the server's HTTP/1 protocol: remembers each request's connection for its handler. */
    static Http1ConnectionListener tracker() {
        return new Http1ConnectionListener() {
            @Override
            public void prologue(ConnectionContext ctx, HttpPrologue prologue) {
                CONNECTION.set(ctx);
            }
        };
    }

    /**
     * A watch on the client of {@code request}, to be used on the request's thread after its body
     * has been read.
     */
    static ClientWatch of(ServerRequest request, Duration readTimeout) {
        ConnectionContext ctx = CONNECTION.get();
        // Another protocol, or a thread that is not the connection's: nothing to watch safely.
        if (ctx == null || !ctx.childSocketId().equals(request.socketId())
                || !ctx.socketId().equals(request.serverSocketId())) {
            return UNWATCHED;
        }
        try {
            return new ClientWatch(ctx.serverSocket(), readTimeout);
        } catch (UnsupportedOperationException e) {
            return UNWATCHED;
        }
    }

    /** True once the client has closed its side of the connection. The first call starts the watch. */
    boolean isGone() {
        if (socket == null) return false;
        long now = System.nanoTime();
        if (!started) {
            started = true;
            startedNanos = now;
            socket.idle();
        }
        return !socket.isConnected() && now - startedNanos < windowNanos;
    }
}
