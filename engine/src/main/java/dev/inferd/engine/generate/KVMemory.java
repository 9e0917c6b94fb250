package dev.inferd.engine.generate;

import dev.inferd.engine.batch.Scheduler;
import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.model.ModelConfig;

/**
 * What a served model's KV cache takes once full, as {@code serve} reports it; with a draft model, its cache too
 * (a block of the draft's beside each of the target's, counted in {@code bytes} and {@code bytesPerPosition}).
 *
 * @param bytes              all of it: the layers that see the whole context and the sliding-window layers' pool
 * @param positions          positions the pool that admission control counts holds, over all sequences
 * @param slidingWindowBytes the sliding-window layers' share: a window's worth of blocks for each of the {@code --parallel}
 *                           sequences (0 when no layer slides); more choices than that take turns, as for the other pool
 * @param bytesPerPosition   what one more position of a sequence takes in the layers that see the whole context
 * @param budget             the KV memory the served context was chosen within ({@code --kv-memory} or
 *                           {@link ContextSizing#defaultBudget()})
 */
public record KVMemory(long bytes, long positions, long slidingWindowBytes, long bytesPerPosition, long budget) {

    /** @param draft the draft model's configuration, whose cache holds a block for each of the target's; null for none */
    static KVMemory of(ModelConfig config, ModelConfig draft, int context, Scheduler.Config schedule, long budget) {
        long windowed = slidingWindowBytes(config, context, schedule.parallel(), schedule.stepTokens());
        long blockBytes = globalBlockBytes(config) + (draft == null ? 0 : draftBlockBytes(draft));
        long global = (long) schedule.blocks() * blockBytes;
        return new KVMemory(global + windowed, (long) schedule.blocks() * schedule.blockSize(), windowed,
                blockBytes / schedule.blockSize(), budget);
    }

    static KVMemory of(ModelConfig config, int context, Scheduler.Config schedule, long budget) {
        return of(config, null, context, schedule, budget);
    }

    /**
     * The target's share of the KV memory beside a draft model: the draft keeps the same positions, so each
     * block of the target's comes with one of the draft's (all its layers counted, sliding or not: a little
     * more than a windowed draft takes).
     */
    static double targetShare(ModelConfig target, ModelConfig draft) {
        long own = globalBlockBytes(target);
        if (own == 0) return 1;
        return (double) own / (own + draftBlockBytes(draft));
    }

    private static long draftBlockBytes(ModelConfig draft) {
        return KVCache.bytesPerBlock(draft.blockCount(), draft.kvLength(), KVCache.DEFAULT_BLOCK_SIZE);
    }

    /** Bytes of one block of the layers that attend over the whole context. */
    static long globalBlockBytes(ModelConfig config) {
        int windowed = config.slidingWindows().windowedCount();
        return KVCache.bytesPerBlock(config.blockCount() - windowed, config.kvLength(), KVCache.DEFAULT_BLOCK_SIZE);
    }

    /** Bytes of the sliding-window layers' pool for {@code sequences} sequences that write {@code stepTokens} positions a step. */
    static long slidingWindowBytes(ModelConfig config, int context, int sequences, int stepTokens) {
        var windows = config.slidingWindows();
        int blockSize = KVCache.DEFAULT_BLOCK_SIZE;
        return (long) sequences * windows.blocksPerSequence(blockSize, context, stepTokens)
                * KVCache.bytesPerBlock(windows.windowedCount(), config.kvLength(), blockSize);
    }
}
