package dev.inferd.engine.generate;

import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.model.ModelConfig;

/**
 * The context a model is served with when none is asked for: the context it was trained for, as far as its KV
 * budget holds one sequence of it. KV memory is paged (blocks drawn from one pool as sequences grow), so the
 * budget is the ceiling of the pool that the {@code --parallel} sequences share rather than a per-sequence
 * reservation: one long prompt may take most of the pool, and when the pool runs dry the youngest sequence is
 * preempted and recomputed later.
 */
public final class ContextSizing {

    private ContextSizing() {
    }

    /**
     * The KV budget of one model when none is configured: a quarter of the machine's memory, and at most half of
     * the Java heap, where the KV cache lives.
     */
    public static long defaultBudget() {
        return Math.min(MachineMemory.physicalBytes() / 4, Runtime.getRuntime().maxMemory() / 2);
    }

    /**
     * The served context: {@code requested} when positive, else the trained context or the positions that
     * {@code budget} holds beside the sliding-window layers' pool, whichever is smaller (a whole number of blocks).
     *
     * @throws IllegalArgumentException when the budget holds no block at all
     */
    static int context(ModelConfig config, int requested, long budget, int parallel, int stepTokens) {
        if (requested > 0) return requested;
        int trained = config.contextLength();
        long blockBytes = KVMemory.globalBlockBytes(config);
        if (blockBytes == 0) return trained; // every layer slides: a window's memory serves any context
        long windowed = KVMemory.slidingWindowBytes(config, trained, parallel, stepTokens);
        int blockSize = KVCache.DEFAULT_BLOCK_SIZE;
        long positions = Math.max(0, budget - windowed) / blockBytes * blockSize;
        if (positions == 0) {
            throw new IllegalArgumentException("KV memory of " + budget + " bytes holds no block of " + blockSize
                    + " positions (" + blockBytes + " bytes) beside the sliding-window layers' " + windowed + " bytes");
        }
        return (int) Math.min(trained, positions);
    }
}
