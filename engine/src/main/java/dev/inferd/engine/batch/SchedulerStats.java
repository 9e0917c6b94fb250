package dev.inferd.engine.batch;

/**
 * A moment of the scheduler, for metrics. Gauges first, then counters since start.
 *
 * @param queuedRequests requests waiting to be admitted
 * @param runningRequests admitted requests not yet complete
 * @param activeSequences sequences (choices) being decoded or prefilled
 * @param pausedSequences sequences preempted for memory, waiting to be recomputed
 * @param kvBlocksTotal KV blocks in the pool
 * @param kvBlocksUsed blocks held by sequences
 * @param kvBlocksCached blocks no sequence holds that keep a prefix for later requests
 * @param kvBlockSize positions per block
 * @param kvBlockBytes bytes one block takes (its layers that see the whole context; sliding-window layers keep a pool of their own)
 * @param promptTokensProcessed prompt (and recomputed) positions run through the model
 * @param cachedPromptTokens prompt positions taken from the prefix cache instead
 * @param tokensGenerated tokens chosen
 * @param preemptions sequences paused because the pool ran dry
 * @param rejectedRequests requests turned away because the queue was full
 * @param steps forward passes run
 * @param draftTokens draft tokens the target verified (speculative decoding)
 * @param acceptedDraftTokens draft tokens the target kept
 */
public record SchedulerStats(int queuedRequests, int runningRequests, int activeSequences, int pausedSequences,
                             int kvBlocksTotal, int kvBlocksUsed, int kvBlocksCached, int kvBlockSize,
                             long kvBlockBytes, long promptTokensProcessed, long cachedPromptTokens,
                             long tokensGenerated, long preemptions, long rejectedRequests, long steps,
                             long draftTokens, long acceptedDraftTokens) {

    /** The share of verified draft tokens the target kept; 0 before any. */
    public double acceptance() {
        return draftTokens == 0 ? 0 : (double) acceptedDraftTokens / draftTokens;
    }
}
