package dev.inferd.server.http;

/**
 * A layer that sees every request before the API's routes (the hosted gateway: keys, limits, metering,
 * its own pages). It answers the request itself, or calls {@code next} to pass it on to the routes and
 * may look at the response after that returns.
 */
@FunctionalInterface
public interface HttpFilter {
    void filter(ServerRequest request, ServerResponse response, Runnable next);
}
