package dev.inferd.server.metrics;

/**
 * Live figures of one model's engine (its scheduler and KV cache), read at every {@code /metrics}
 * scrape. The engine keeps its own stats type; whoever wires a model into the server adapts it:
 *
 * <pre>{@code
 * EngineStats stats = () -> {
 *     var s = scheduler.stats();
 *     return new EngineStats.Snapshot(s.queued(), s.active(), s.kvBlocksUsed(), s.kvBlocksTotal(), s.kvBlocksCached());
 * };
 * registry.ready("llama-3.2-1b", generator, stats);
 * }</pre>
 *
 * Called from the scrape's thread while the engine runs: implementations read, they never block
 * on a decode step.
 */
@FunctionalInterface
public interface EngineStats {

    Snapshot snapshot();

    /**
     * @param queuedRequests requests accepted but not yet decoding
     * @param activeSequences sequences in the running batch
     * @param kvBlocksUsed KV-cache blocks held by live sequences
     * @param kvBlocksTotal KV-cache blocks in the pool
     * @param kvBlocksCached blocks kept only for prefix reuse (free to evict)
     */
    record Snapshot(int queuedRequests, int activeSequences, long kvBlocksUsed, long kvBlocksTotal,
                    long kvBlocksCached) {
    }
}
