package dev.inferd.engine.model;

import dev.inferd.engine.model.Architecture.RopeStyle;

/**
 * Rotary position embedding as llama.cpp applies it: angle {@code pos * base^(-2i/d) * freqScale / factor[i]}
 * for pair {@code i < d/2}, where {@code d} is the rotated width and {@code factor} the optional
 * {@code rope_freqs.weight} (Llama 3) or LongRoPE's short or long factors (Phi-3). {@link RopeStyle} says which two
 * elements form pair {@code i}. The cosines and sines are multiplied by an attention factor (LongRoPE's, else 1).
 */
final class Rope {
    private final RopeStyle style;
    private final int headDim;
    private final int rotated;
    private final float[] inverseFrequencies; // per pair, scaling and factors folded in
    private final float attentionFactor;

    Rope(ModelConfig config, float[] frequencyFactors) {
        this(config, config.ropeFreqBase(), config.ropeScaling().frequencyScale(), frequencyFactors,
                config.conventions().ropeAttentionFactor());
    }

    /** With its own base and frequency multiplier: Gemma 3's sliding-window layers have theirs. */
    Rope(ModelConfig config, float freqBase, float scale, float[] frequencyFactors, float attentionFactor) {
        style = config.architecture().ropeStyle();
        headDim = config.headDim();
        rotated = config.ropeDimensionCount();
        this.attentionFactor = attentionFactor;
        int pairs = rotated / 2;
        if (frequencyFactors != null && frequencyFactors.length != pairs) {
            throw new UnsupportedModelException("the RoPE frequency factors are " + frequencyFactors.length
                    + ", expected rope.dimension_count / 2 = " + pairs);
        }
        inverseFrequencies = new float[pairs];
        // Successive powers by multiplication, as ggml computes them, so angles round the same way.
        float thetaScale = (float) Math.pow(freqBase, -2.0 / rotated);
        float power = 1f;
        for (int i = 0; i < pairs; i++) {
            float f = power * scale;
            if (frequencyFactors != null) f /= frequencyFactors[i];
            inverseFrequencies[i] = f;
            power *= thetaScale;
        }
    }

    /** Pairs per head: the number of angles one position needs. */
    int pairs() { return inverseFrequencies.length; }

    /** Writes the cosines and sines for {@code position} at {@code offset}. */
    void angles(int position, float[] cos, float[] sin, int offset) {
        for (int i = 0; i < inverseFrequencies.length; i++) {
            float theta = position * inverseFrequencies[i];
            cos[offset + i] = (float) Math.cos(theta) * attentionFactor;
            sin[offset + i] = (float) Math.sin(theta) * attentionFactor;
        }
    }

    /** Rotates {@code heads} consecutive heads of {@code headDim} starting at {@code offset}, in place. */
    void rotate(float[] v, int offset, int heads, float[] cos, float[] sin, int angleOffset) {
        int pairs = inverseFrequencies.length;
        int stride = style == RopeStyle.NEOX ? pairs : 1;
        int step = style == RopeStyle.NEOX ? 1 : 2;
        for (int h = 0; h < heads; h++) {
            int base = offset + h * headDim;
            for (int i = 0; i < pairs; i++) {
                int a = base + i * step;
                int b = a + stride;
                float c = cos[angleOffset + i];
                float s = sin[angleOffset + i];
                float x0 = v[a];
                float x1 = v[b];
                v[a] = x0 * c - x1 * s;
                v[b] = x0 * s + x1 * c;
            }
        }
    }
}
