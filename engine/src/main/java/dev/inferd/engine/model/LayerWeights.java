package dev.inferd.engine.model;

import dev.inferd.engine.tensor.WeightMatrix;

import java.util.List;

/**
 * One transformer block's tensors ({@code blk.N.*}); biases and the optional norms are null when the file has none:
 * per-head query and key norms (Qwen3, Gemma 3), norms of the attention's and the feed-forward's outputs (Gemma).
 */
record LayerWeights(
        float[] attentionNorm,
        WeightMatrix query,
        WeightMatrix key,
        WeightMatrix value,
        float[] queryBias,
        float[] keyBias,
        float[] valueBias,
        float[] queryNorm,
        float[] keyNorm,
        WeightMatrix attentionOutput,
        float[] postAttentionNorm,
        float[] ffnNorm,
        WeightMatrix ffnGate,
        WeightMatrix ffnUp,
        WeightMatrix ffnDown,
        float[] postFeedForwardNorm) {

    /** The block's weight matrices, the ones a forward pass multiplies by. */
    List<WeightMatrix> matrices() {
        return List.of(query, key, value, attentionOutput, ffnGate, ffnUp, ffnDown);
    }
}
