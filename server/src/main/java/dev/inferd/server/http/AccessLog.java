package dev.inferd.server.http;

import dev.inferd.server.openai.Usage;

import java.lang.System.Logger.Level;

/**
 * One line per request for operators: request id, method, route, status, tokens and duration. Never
 * a body, a header value or a query string, so nothing a client sent in confidence reaches the log.
 * The endpoint that knows the token counts records them on the request's entry, which the router
 * holds in a scoped value for the request's thread: the generating endpoint under {@code serve}, on a gateway the
 * proxy that hears the worker's count.
 */
public final class AccessLog {

    private static final System.Logger LOG = System.getLogger("inferd.access");

    /** The entry of the request the current thread serves. */
    static final ScopedValue<Entry> CURRENT = ScopedValue.newInstance();

    /** What is known of one request while it runs. */
    static final class Entry {
        private volatile String tokens = "-";

        void tokens(int prompt, int completion) {
            this.tokens = prompt + "+" + completion;
        }
    }

    private AccessLog() {
    }

    /** Records the token counts of the current request, if it is one the router serves. */
    static void usage(Usage usage) {
        tokens(usage.promptTokens(), usage.completionTokens());
    }

    /** Records the prompt and completion tokens of the current request, if it is one the router serves. */
    public static void tokens(int prompt, int completion) {
        if (CURRENT.isBound()) CURRENT.get().tokens(prompt, completion);
    }

    static void write(String requestId, String method, String route, int status, Entry entry, long nanos) {
        if (!LOG.isLoggable(Level.INFO)) return;
        LOG.log(Level.INFO, requestId + " " + method + " " + route + " " + status + " tokens=" + entry.tokens + " "
                + nanos / 1_000_000 + "ms");
    }
}
