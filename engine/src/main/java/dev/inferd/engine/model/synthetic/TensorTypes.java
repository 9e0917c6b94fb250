package dev.inferd.engine.model.synthetic;

import dev.inferd.engine.gguf.GGMLType;

/**
 * Chooses each tensor's type in a synthetic file, the way {@code llama-quantize} does for a file type:
 * a per-tensor rule rather than one type, so that mixes such as Q4_K_M (Q6_K for some tensors, a
 * fallback where a row is not a whole number of 256-element blocks) plug in as another rule.
 */
@FunctionalInterface
public interface TensorTypes {

    /**
     * @param name the GGUF tensor name, e.g. {@code blk.3.ffn_down.weight}
     * @param dims ggml order: {@code dims[0]} is the row length
     */
    GGMLType typeOf(String name, long[] dims);

    /** Every matrix in {@code type}; vectors (norms, biases, rope factors) in F32, as llama.cpp keeps them. */
    static TensorTypes uniform(GGMLType type) {
        return (name, dims) -> dims.length == 1 ? GGMLType.F32 : type;
    }
}
