package dev.inferd.app;

import dev.inferd.server.http.ServerOptions;

/**
 * The memory the serving process may use, as {@code serve} prints it at start-up. Model weights are
 * mapped from their files, outside the heap; the KV caches live in the heap, each within its
 * {@code --kv-memory}; requests add at most their body each (the body limit times the in-flight
 * requests) and their prompt's tokens, which the context bounds. The heap's ceiling is the JVM's
 * {@code -Xmx} (the {@code inferd} script sets it as a share of RAM, {@code INFERD_HEAP_PERCENT}).
 */
final class MemoryBudget {

    private MemoryBudget() {
    }

    static String describe(ServerOptions options, int models) {
        long heap = Runtime.getRuntime().maxMemory();
        ServerOptions.Limits limits = options.limits();
        long inFlight = (long) options.maxInFlightPerModel() * models;
        long bodies = limits.maxBodyBytes() * Math.min(inFlight, limits.maxConnections());
        return "inferd: memory budget: heap at most " + mib(heap) + " (KV caches and requests; weights are mapped "
                + "outside it); request bodies at most " + mib(limits.maxBodyBytes()) + " each, "
                + mib(bodies) + " for " + inFlight + " in flight; " + limits.maxConnections() + " connections; "
                + "timeouts: read " + limits.readTimeout().toSeconds() + " s, idle " + limits.idleTimeout().toSeconds()
                + " s, write " + limits.writeTimeout().toSeconds() + " s; bodies at least "
                + (limits.minBodyBytesPerSecond() == 0 ? "any rate" : limits.minBodyBytesPerSecond() + " bytes/s");
    }

    private static String mib(long bytes) {
        return bytes >= 1L << 30 ? String.format("%.1f GiB", bytes / (double) (1L << 30))
                : (bytes >> 20) + " MiB";
    }
}
