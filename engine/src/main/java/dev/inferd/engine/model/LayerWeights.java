package dev.inferd.engine.model;

import dev.inferd.engine.tensor.WeightMatrix;

import java.util.List;

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

    /** The block's weight matrices, the ones a forward pass multiplies by. */
    List<WeightMatrix> matrices() {
        return List.of(query, key, value, attentionOutput, ffnGate, ffnUp, ffnDown);
    }
}
