package dev.inferd.engine.model;

/**
 * The numbers by which the architectures' forward passes differ beyond their shapes, as the GGUF metadata gives
 * them or llama.cpp's loader supplies them when it does not.
 *
 * @param embeddingScale      the token embedding's multiplier (Gemma: sqrt of the width)
 * @param queryScale          0: scores are scaled by {@code 1/sqrt(headDim)} in the softmax; otherwise the
 *                            queries are multiplied by this before their scores (Gemma, Phi-3), as llama.cpp does
 * @param attentionSoftcap    0, or {@code c} in {@code c * tanh(score / c)} applied to the attention scores
 * @param finalSoftcap        0, or the same cap applied to the output logits
 * @param slidingWindow       0, or how many positions (its own included) a sliding-window layer sees
 * @param slidingLayers       which layers use the sliding window
 * @param slidingRopeFreqBase RoPE base of the sliding-window layers
 * @param slidingRopeScale    RoPE frequency multiplier of the sliding-window layers (the others: {@link RopeScaling})
 * @param ropeAttentionFactor multiplier of RoPE's cosines and sines (Phi-3's LongRoPE attention scaling)
 * @param ropeOriginalContext LongRoPE's long factors apply when a sequence's context exceeds this
 */
public record Conventions(float embeddingScale, float queryScale, float attentionSoftcap, float finalSoftcap,
                          int slidingWindow, boolean[] slidingLayers, float slidingRopeFreqBase, float slidingRopeScale,
                          float ropeAttentionFactor, int ropeOriginalContext) {

    public Conventions {
        if (slidingWindow < 0) throw new UnsupportedModelException("attention.sliding_window must not be negative");
        if (attentionSoftcap < 0 || finalSoftcap < 0) throw new UnsupportedModelException("soft-capping must not be negative");
        slidingLayers = slidingLayers.clone();
    }

    /** llama's: nothing scaled beforehand, no window, no caps. */
    static Conventions plain(int layers) {
        return new Conventions(1f, 0f, 0f, 0f, 0, new boolean[layers], 10_000f, 1f, 1f, Integer.MAX_VALUE);
    }

    /** Whether layer {@code layer} attends over a sliding window. */
    public boolean isSliding(int layer) {
        return slidingWindow > 0 && slidingLayers[layer];
    }

    /** The first position that a query at {@code position} of layer {@code layer} sees. */
    int firstVisible(int layer, int position) {
        return isSliding(layer) ? Math.max(0, position - slidingWindow + 1) : 0;
    }

    /** Whether any layer attends over the whole context. */
    public boolean hasGlobalLayer() {
        for (int l = 0; l < slidingLayers.length; l++) if (!isSliding(l)) return true;
        return false;
    }

    @Override
    public boolean[] slidingLayers() {
        return slidingLayers.clone();
    }

    static Conventions fromGGUF(ModelConfig.Keys keys, Architecture arch, int layers, int embd, int heads, int headDim) {
        float base = keys.optionalFloat("rope.freq_base", 10_000f);
        return switch (arch) {
            case LLAMA, QWEN2, QWEN3 -> plain(layers);
            case GEMMA2 -> new Conventions((float) Math.sqrt(embd), gemmaQueryScale(layers == 46, embd, heads, headDim),
                    keys.optionalFloat("attn_logit_softcapping", 50f), keys.optionalFloat("final_logit_softcapping", 30f),
                    keys.optionalInt("attention.sliding_window", 4096), slidingPattern(keys, layers, 2),
                    keys.optionalFloat("rope.freq_base_swa", base), RopeScaling.fromGGUF(keys).frequencyScale(),
                    1f, Integer.MAX_VALUE);
            case GEMMA3 -> {
                int window = keys.optionalInt("attention.sliding_window", 0);
                yield new Conventions((float) Math.sqrt(embd), gemmaQueryScale(layers == 62, embd, heads, headDim),
                        0f, keys.optionalFloat("final_logit_softcapping", 0f),
                        window, window > 0 ? slidingPattern(keys, layers, 6) : new boolean[layers],
                        keys.optionalFloat("rope.freq_base_swa", 10_000f), 1f, 1f, Integer.MAX_VALUE);
            }
            // Phi-3's sliding window (Phi-3-mini-4k) is left out, as llama.cpp leaves it out: its converter's pattern is unreliable
            case PHI3 -> new Conventions(1f, (float) (1 / Math.sqrt(headDim)), 0f, 0f, 0, new boolean[layers], base, 1f,
                    keys.optionalFloat("rope.scaling.attn_factor", 1f),
                    keys.optionalInt("rope.scaling.original_context_length", keys.requireInt("context_length")));
        };
    }

    /** Gemma's 27B models scale queries by the width per head, the others by the head size. */
    private static float gemmaQueryScale(boolean largest, int embd, int heads, int headDim) {
        return (float) (1 / Math.sqrt(largest ? (double) (embd / heads) : headDim));
    }

    /**
     * {@code attention.sliding_window_pattern}: per layer (an array) or a period {@code n}, in which the first
     * {@code n - 1} layers slide and the last is global.
     */
    private static boolean[] slidingPattern(ModelConfig.Keys keys, int layers, int defaultPeriod) {
        Object value = keys.gguf().metadata().get(keys.name("attention.sliding_window_pattern"));
        boolean[] sliding = new boolean[layers];
        if (value instanceof boolean[] perLayer) {
            if (perLayer.length < layers) {
                throw new UnsupportedModelException(keys.name("attention.sliding_window_pattern") + " has "
                        + perLayer.length + " entries for " + layers + " layers");
            }
            System.arraycopy(perLayer, 0, sliding, 0, layers);
            return sliding;
        }
        int period = keys.optionalInt("attention.sliding_window_pattern", defaultPeriod);
        for (int l = 0; l < layers; l++) sliding[l] = period == 0 || l % period < period - 1;
        return sliding;
    }
}
