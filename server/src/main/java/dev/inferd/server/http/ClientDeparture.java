package dev.inferd.server.http;

/**
 * A request's client leaving while the server has nothing to write to it (see {@link ClientWatch}), heard by work
 * that can be stopped: a generation here, a request forwarded to a worker on a gateway.
 */
public interface ClientDeparture {

    /**
     * From now until the request ends, the client's departure runs {@code stop} (replacing an earlier one), on the
     * watch's thread, which it must not block; it may run more than once.
     */
    void onDeparture(Runnable stop);

    /** True once the client was seen to leave. */
    boolean isGone();
}
