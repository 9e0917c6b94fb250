package dev.inferd.server.http;

import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.thread.Scheduler;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Jetty's HTTP/1.1 connections, with a deadline on each request's headers as a whole: they must all have
 * arrived within the header timeout, counted from the connection's opening for its first request and
 * from the first byte of each later one; past it the connection is closed. Jetty's idle timeout bounds
 * each wait for bytes only, so a client sending a byte now and then could hold a connection for ever
 * (slowloris); Jetty 12's core has no header deadline of its own.
 */
final class HeaderDeadlineConnectionFactory extends HttpConnectionFactory {

    private static final System.Logger LOG = System.getLogger(HeaderDeadlineConnectionFactory.class.getName());

    private final Duration headerTimeout;

    HeaderDeadlineConnectionFactory(HttpConfiguration config, Duration headerTimeout) {
        super(config);
        this.headerTimeout = headerTimeout;
    }

    @Override
    public Connection newConnection(Connector connector, EndPoint endPoint) {
        var connection = new TimedConnection(getHttpConfiguration(), connector, endPoint,
                new Deadline(connector.getScheduler(), endPoint, headerTimeout));
        connection.setUseInputDirectByteBuffers(isUseInputDirectByteBuffers());
        connection.setUseOutputDirectByteBuffers(isUseOutputDirectByteBuffers());
        return configure(connection, connector, endPoint);
    }

    /** The running clock of one connection's current request headers; at most one at a time. */
    static final class Deadline {
        private final Scheduler scheduler;
        private final EndPoint endPoint;
        private final Duration timeout;
        private Scheduler.Task task;

        Deadline(Scheduler scheduler, EndPoint endPoint, Duration timeout) {
            this.scheduler = scheduler;
            this.endPoint = endPoint;
            this.timeout = timeout;
        }

        synchronized void start() {
            if (task == null) task = scheduler.schedule(this::expire, timeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        synchronized void stop() {
            if (task != null) {
                task.cancel();
                task = null;
            }
        }

        private void expire() {
            synchronized (this) {
                if (task == null) return;
                task = null;
            }
            LOG.log(System.Logger.Level.DEBUG, "closing " + endPoint.getRemoteSocketAddress()
                    + ": its request headers did not arrive within " + timeout.toMillis() + " ms");
            endPoint.close(new TimeoutException("request headers not complete within " + timeout.toMillis() + " ms"));
        }
    }

    /** Starts the deadline as a connection opens and as each later request's first bytes are parsed. */
    private static final class TimedConnection extends HttpConnection {
        private final Deadline deadline;
        /** Set while the superclass's constructor runs: the handler the parser is made with. */
        private RequestHandler handler;

        TimedConnection(HttpConfiguration config, Connector connector, EndPoint endPoint, Deadline deadline) {
            this.deadline = deadline; // before super(): the superclass's constructor makes the parser, which needs it
            super(config, connector, endPoint);
        }

        @Override
        protected RequestHandler newRequestHandler() {
            handler = super.newRequestHandler();
            return handler;
        }

        @Override
        protected HttpParser newHttpParser(HttpCompliance compliance) {
            HttpParser parser = new TimedParser(handler, getHttpConfiguration().getRequestHeaderSize(), compliance, deadline);
            parser.setHeaderCacheSize(getHttpConfiguration().getHeaderCacheSize());
            parser.setHeaderCacheCaseSensitive(getHttpConfiguration().isHeaderCacheCaseSensitive());
            return parser;
        }

        @Override
        public void onOpen() {
            deadline.start();
            super.onOpen();
        }

        @Override
        public void onClose(Throwable cause) {
            deadline.stop();
            super.onClose(cause);
        }
    }

    private static final class TimedParser extends HttpParser {
        private final Deadline deadline;

        TimedParser(RequestHandler handler, int maxHeaderBytes, HttpCompliance compliance, Deadline deadline) {
            super(handler, maxHeaderBytes, compliance);
            this.deadline = deadline;
        }

        @Override
        public boolean parseNext(ByteBuffer buffer) {
            if (isStart() && buffer.hasRemaining()) deadline.start();
            boolean handle = super.parseNext(buffer);
            if (!inHeaderState()) deadline.stop();
            return handle;
        }
    }
}
