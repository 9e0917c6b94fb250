package dev.inferd.engine.model;

import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.kvcache.SlidingWindows;

/**
 * The hyperparameters of a decoder-only transformer, read from a GGUF file's {@code <arch>.*} metadata.
 *
 * @param headDim            width of one attention head (q and k); {@code <arch>.attention.key_length}
 *                           or {@code embeddingLength / headCount}
 * @param ropeDimensionCount how many leading elements of each head RoPE rotates (the rest pass through)
 * @param contextLength      the context the model was trained for
 * @param conventions        the numbers by which architectures differ beyond the shapes
 */
public record ModelConfig(
        Architecture architecture,
        int embeddingLength,
        int blockCount,
        int feedForwardLength,
        int headCount,
        int headCountKv,
        int headDim,
        float rmsNormEps,
        float ropeFreqBase,
        int ropeDimensionCount,
        RopeScaling ropeScaling,
        int contextLength,
        int vocabSize,
        Conventions conventions) {

    /** A model with llama's attention: scores scaled by 1/sqrt(headDim) in the softmax, no window, no caps. */
    public ModelConfig(Architecture architecture, int embeddingLength, int blockCount, int feedForwardLength, int headCount,
                       int headCountKv, int headDim, float rmsNormEps, float ropeFreqBase, int ropeDimensionCount,
                       RopeScaling ropeScaling, int contextLength, int vocabSize) {
        this(architecture, embeddingLength, blockCount, feedForwardLength, headCount, headCountKv, headDim, rmsNormEps,
                ropeFreqBase, ropeDimensionCount, ropeScaling, contextLength, vocabSize, Conventions.plain(blockCount));
    }

    public ModelConfig {
        positive("embedding_length", embeddingLength);
        positive("block_count", blockCount);
        positive("feed_forward_length", feedForwardLength);
        positive("attention.head_count", headCount);
        positive("attention.head_count_kv", headCountKv);
        positive("head dimension", headDim);
        positive("context_length", contextLength);
        positive("vocab_size", vocabSize);
        if (headCount % headCountKv != 0) {
            throw new UnsupportedModelException("attention.head_count " + headCount
                    + " is not a multiple of attention.head_count_kv " + headCountKv);
        }
        if (ropeDimensionCount <= 0 || ropeDimensionCount > headDim || ropeDimensionCount % 2 != 0) {
            throw new UnsupportedModelException("rope.dimension_count " + ropeDimensionCount
                    + " must be even and between 2 and the head dimension " + headDim);
        }
        if (conventions.slidingLayers().length != blockCount) {
            throw new IllegalArgumentException("sliding-window pattern for " + conventions.slidingLayers().length
                    + " layers, the model has " + blockCount);
        }
        if (!(rmsNormEps > 0) || !(ropeFreqBase > 0)) {
            throw new UnsupportedModelException("layer_norm_rms_epsilon and rope.freq_base must be positive");
        }
    }

    /** Width of the query projection ({@code headCount * headDim}). */
    public int queryLength() { return headCount * headDim; }

    /** Width of the key and value projections ({@code headCountKv * headDim}). */
    public int kvLength() { return headCountKv * headDim; }

    /** Query heads that share one key/value head (grouped-query attention). */
    public int groupSize() { return headCount / headCountKv; }

    /** The layers whose attention slides, as the KV cache keeps them. */
    public SlidingWindows slidingWindows() {
        boolean[] sliding = new boolean[blockCount];
        for (int l = 0; l < blockCount; l++) sliding[l] = conventions.isSliding(l);
        return new SlidingWindows(conventions.slidingWindow(), sliding);
    }

    public static ModelConfig fromGGUF(GGUFFile gguf) {
        Architecture arch = Architecture.fromGGUF(gguf.architecture());
        var keys = new Keys(gguf, arch.ggufName());
        int embd = keys.requireInt("embedding_length");
        int heads = keys.requireInt("attention.head_count");
        int headsKv = keys.optionalInt("attention.head_count_kv", heads);
        if (heads <= 0) throw new UnsupportedModelException(keys.name("attention.head_count") + " must be positive");
        int headDim = keys.optionalInt("attention.key_length", embd / heads);
        int valueLength = keys.optionalInt("attention.value_length", headDim);
        if (valueLength != headDim) {
            throw new UnsupportedModelException("attention.value_length " + valueLength
                    + " differs from attention.key_length " + headDim + ", which this engine does not support");
        }
        int vocab = keys.optionalInt("vocab_size", -1);
        if (vocab < 0 && gguf.metadata().get("tokenizer.ggml.tokens") instanceof String[] tokens) vocab = tokens.length;
        if (vocab < 0 && gguf.tensors().containsKey("token_embd.weight")) {
            vocab = Math.toIntExact(gguf.tensor("token_embd.weight").rows());
        }
        if (vocab < 0) throw new UnsupportedModelException("the file gives no vocabulary size (no "
                + keys.name("vocab_size") + ", tokenizer.ggml.tokens or token_embd.weight)");
        int layers = keys.requireInt("block_count");
        if (layers <= 0) throw new UnsupportedModelException(keys.name("block_count") + " must be positive");
        return new ModelConfig(
                arch,
                embd,
                layers,
                keys.requireInt("feed_forward_length"),
                heads,
                headsKv,
                headDim,
                keys.requireFloat("attention.layer_norm_rms_epsilon"),
                keys.optionalFloat("rope.freq_base", 10_000f),
                keys.optionalInt("rope.dimension_count", headDim),
                RopeScaling.fromGGUF(keys),
                keys.requireInt("context_length"),
                vocab,
                Conventions.fromGGUF(keys, arch, layers, embd, heads, headDim));
    }

    private static void positive(String what, int value) {
        if (value <= 0) throw new UnsupportedModelException(what + " must be positive, was " + value);
    }

    /** Reads {@code <arch>.<key>} with messages that name the full key. */
    record Keys(GGUFFile gguf, String arch) {
        String name(String key) { return arch + "." + key; }

        int requireInt(String key) {
            if (!(gguf.metadata().get(name(key)) instanceof Number)) {
                throw new UnsupportedModelException("missing or non-numeric metadata key " + name(key));
            }
            return gguf.getInt(name(key), 0);
        }

        int optionalInt(String key, int fallback) {
            Object v = gguf.metadata().get(name(key));
            if (v != null && !(v instanceof Number)) throw new UnsupportedModelException(name(key) + " is not a number");
            return gguf.getInt(name(key), fallback);
        }

        float requireFloat(String key) {
            if (!(gguf.metadata().get(name(key)) instanceof Number)) {
                throw new UnsupportedModelException("missing or non-numeric metadata key " + name(key));
            }
            return gguf.getFloat(name(key), 0);
        }

        float optionalFloat(String key, float fallback) {
            Object v = gguf.metadata().get(name(key));
            if (v != null && !(v instanceof Number)) throw new UnsupportedModelException(name(key) + " is not a number");
            return gguf.getFloat(name(key), fallback);
        }

        boolean has(String key) {
            return gguf.metadata().containsKey(name(key));
        }

        String optionalString(String key) {
            Object v = gguf.metadata().get(name(key));
            if (v != null && !(v instanceof String)) throw new UnsupportedModelException(name(key) + " is not a string");
            return (String) v;
        }
    }
}
