package dev.inferd.engine.model;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The GGUF {@code general.architecture} values this engine runs, and what differs between them. */
public enum Architecture {
    /** Llama 2/3, TinyLlama, SmolLM2, Mistral: q/k weights are permuted by the converter for pairwise RoPE. */
    LLAMA("llama", RopeStyle.INTERLEAVED),
    /** Qwen2/2.5: q/k/v biases, RoPE over the two halves of each head. */
    QWEN2("qwen2", RopeStyle.NEOX);

    private final String ggufName;
    private final RopeStyle ropeStyle;

    Architecture(String ggufName, RopeStyle ropeStyle) {
        this.ggufName = ggufName;
        this.ropeStyle = ropeStyle;
    }

    public String ggufName() { return ggufName; }

    public RopeStyle ropeStyle() { return ropeStyle; }

    public static Architecture fromGGUF(String name) {
        for (Architecture a : values()) if (a.ggufName.equals(name)) return a;
        throw new UnsupportedModelException("architecture '" + name + "' is not supported (supported: "
                + Arrays.stream(values()).map(Architecture::ggufName).collect(Collectors.joining(", ")) + ")");
    }

    /**
     * Which elements RoPE rotates together. llama.cpp calls these LLAMA_ROPE_TYPE_NORM (adjacent pairs
     * {@code 2i, 2i+1}) and LLAMA_ROPE_TYPE_NEOX (pairs {@code i, i + d/2}).
     */
    public enum RopeStyle { INTERLEAVED, NEOX }
}
