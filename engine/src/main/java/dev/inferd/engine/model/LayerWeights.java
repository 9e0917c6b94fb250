package dev.inferd.engine.model;

import dev.inferd.engine.tensor.WeightMatrix;

/** One transformer block's tensors ({@code blk.N.*}); biases are null when the file has none. */
record LayerWeights(
        float[] attentionNorm,
        WeightMatrix query,
        WeightMatrix key,
        WeightMatrix value,
        float[] queryBias,
        float[] keyBias,
        float[] valueBias,
        WeightMatrix attentionOutput,
        float[] ffnNorm,
        WeightMatrix ffnGate,
        WeightMatrix ffnUp,
        WeightMatrix ffnDown) {
}
