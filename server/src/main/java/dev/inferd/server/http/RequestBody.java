package dev.inferd.server.http;

import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Blocker;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Objects;

/**
 * A request's body as a blocking stream, read on the request's own (virtual) thread. Each wait for the
 * next bytes is bounded by the connection's idle timeout (the read timeout while a request is read), and
 * the body as a whole must arrive at a minimum average rate: past a grace period, a body whose bytes so
 * far came slower than that fails the read. Closing it does not end the body: what a handler left unread
 * can still be drained ({@link #drain}), so that the connection survives an early answer.
 */
final class RequestBody extends InputStream {

    /** A body's first seconds are not judged: TCP's slow start and a client's own set-up are not slowness. */
    static final Duration RATE_GRACE = Duration.ofSeconds(5);

    private final Request request;
    private final long minBytesPerSecond;
    private Content.Chunk chunk;
    private boolean ended;
    private IOException failure;
    private long arrived;
    private long firstReadNanos = -1;

    /** @param minBytesPerSecond 0 for no minimum */
    RequestBody(Request request, long minBytesPerSecond) {
        this.request = request;
        this.minBytesPerSecond = minBytesPerSecond;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) return 0;
        while (chunk == null) {
            if (ended) return -1;
            nextChunk();
        }
        int n = chunk.get(b, off, len);
        if (!chunk.hasRemaining()) releaseChunk();
        return n;
    }

    /** The handler is done with the body; what it left stays for {@link #drain}. */
    @Override
    public void close() {
    }

    /** True once the body's end was read. */
    boolean ended() {
        return ended;
    }

    /** True once a read of the body failed (a timeout, a broken body, too slow): it cannot be drained. */
    boolean failed() {
        return failure != null;
    }

    /** True once the body was asked for at all. */
    boolean started() {
        return firstReadNanos >= 0;
    }

    /** Bytes of the body received so far (read or waiting in the current chunk). */
    long arrived() {
        return arrived;
    }

    /**
     * Reads and discards the rest of the body, up to {@code maxBytes} more and until {@code deadlineNanos}
     * (each wait for bytes is bounded by what is left of it, and by {@code readTimeout}).
     *
     * @return true when the body's end was reached
     */
    boolean drain(long maxBytes, long deadlineNanos, EndPoint endPoint, Duration readTimeout) {
        long discarded = 0;
        try {
            while (!ended || chunk != null) {
                if (chunk != null) {
                    discarded += chunk.remaining();
                    releaseChunk();
                    continue;
                }
                long left = deadlineNanos - System.nanoTime();
                if (discarded > maxBytes || left <= 0) return false;
                endPoint.setIdleTimeout(Math.max(1, Math.min(readTimeout.toMillis(), left / 1_000_000)));
                nextChunk();
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Gives back the buffer of a chunk still held; the body is not read any further. */
    void release() {
        releaseChunk();
    }

    private void nextChunk() throws IOException {
        if (failure != null) throw failure;
        if (firstReadNanos < 0) firstReadNanos = System.nanoTime();
        while (true) {
            Content.Chunk next = request.read();
            if (next == null) {
                awaitContent();
                continue;
            }
            if (Content.Chunk.isFailure(next)) {
                Throwable cause = next.getFailure();
                throw failure = cause instanceof IOException io ? io : new IOException(cause);
            }
            if (next.isLast()) ended = true;
            arrived += next.remaining();
            if (next.hasRemaining()) {
                chunk = next;
            } else {
                next.release();
            }
            checkRate();
            return;
        }
    }

    private void awaitContent() throws IOException {
        try (Blocker.Runnable ready = Blocker.runnable()) {
            request.demand(ready);
            ready.block();
        }
    }

    private void checkRate() throws IOException {
        if (minBytesPerSecond <= 0 || ended) return;
        long elapsed = System.nanoTime() - firstReadNanos;
        if (elapsed <= RATE_GRACE.toNanos()) return;
        long rate = (long) (arrived / (elapsed / 1e9));
        if (rate < minBytesPerSecond) {
            releaseChunk();
            throw failure = new IOException("it arrived at " + rate + " bytes a second, slower than the server's minimum of "
                    + minBytesPerSecond);
        }
    }

    private void releaseChunk() {
        if (chunk != null) {
            chunk.release();
            chunk = null;
        }
    }
}
