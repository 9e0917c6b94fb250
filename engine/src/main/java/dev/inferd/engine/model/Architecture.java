package dev.inferd.engine.model;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The GGUF {@code general.architecture} values this engine runs, and what differs between them. The
 * tensors a file holds decide the rest: q/k/v biases, per-head query and key norms, fused QKV and
 * gate/up matrices, norms after attention and feed-forward are used where present.
 */
public enum Architecture {
    /** Llama 2/3, TinyLlama, SmolLM2, Mistral: q/k weights are permuted by the converter for pairwise RoPE. */
    LLAMA("llama", RopeStyle.INTERLEAVED, Activation.SILU, false),
    /** Qwen2/2.5: q/k/v biases, RoPE over the two halves of each head. */
    QWEN2("qwen2", RopeStyle.NEOX, Activation.SILU, false),
    /** Qwen3: per-head RMSNorm of queries and keys before RoPE, no biases. */
    QWEN3("qwen3", RopeStyle.NEOX, Activation.SILU, false),
    /**
     * Gemma 2: embeddings scaled by sqrt(width), GELU-gated feed-forward, norms after attention and feed-forward,
     * soft-capped attention and output logits, a sliding window on every other layer (the even ones).
     */
    GEMMA2("gemma2", RopeStyle.NEOX, Activation.GELU, true),
    /** Gemma 3 (text): Gemma 2's layout with per-head q/k norms, five sliding-window layers to one global one. */
    GEMMA3("gemma3", RopeStyle.NEOX, Activation.GELU, true),
    /** Phi-3/3.5/4-mini: fused QKV and gate/up matrices, LongRoPE factors, partial rotary dimensions. */
    PHI3("phi3", RopeStyle.NEOX, Activation.SILU, false);

    private final String ggufName;
    private final RopeStyle ropeStyle;
    private final Activation activation;
    private final boolean gemma;

    Architecture(String ggufName, RopeStyle ropeStyle, Activation activation, boolean gemma) {
        this.ggufName = ggufName;
        this.ropeStyle = ropeStyle;
        this.activation = activation;
        this.gemma = gemma;
    }

    public String ggufName() { return ggufName; }

    public RopeStyle ropeStyle() { return ropeStyle; }

    /** The gate's activation in the gated feed-forward. */
    public Activation activation() { return activation; }

    /** Gemma's conventions: embeddings times sqrt(width), queries scaled before their scores. */
    boolean isGemma() { return gemma; }

    public static Architecture fromGGUF(String name) {
        for (Architecture a : values()) if (a.ggufName.equals(name)) return a;
        throw new UnsupportedModelException("architecture '" + name + "' is not supported (supported: "
                + names() + ")");
    }

    /** Whether this engine runs files of {@code general.architecture} {@code name}. */
    public static boolean supports(String name) {
        return Arrays.stream(values()).anyMatch(a -> a.ggufName.equals(name));
    }

    /** The supported names, comma-separated. */
    public static String names() {
        return Arrays.stream(values()).map(Architecture::ggufName).collect(Collectors.joining(", "));
    }

    /**
     * Which elements RoPE rotates together. llama.cpp calls these LLAMA_ROPE_TYPE_NORM (adjacent pairs
     * {@code 2i, 2i+1}) and LLAMA_ROPE_TYPE_NEOX (pairs {@code i, i + d/2}).
     */
    public enum RopeStyle { INTERLEAVED, NEOX }

    /** {@code silu(gate) * up} (SwiGLU) or {@code gelu(gate) * up} with GELU's tanh approximation (GeGLU). */
    public enum Activation { SILU, GELU }
}
