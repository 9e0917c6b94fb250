package dev.inferd.engine.model.synthetic;

import dev.inferd.engine.gguf.GGMLType;

/**
 * The tensor types {@code llama-quantize} picks for the k-quant "M" mixes, simplified to the tensors of
 * llama and qwen2 models: the output head (or the tied token embedding that serves as one) in Q6_K;
 * {@code attn_v} and {@code ffn_down} in Q6_K in the layers that get more bits (the first and last
 * eighth, and every third in between); everything else in the base type. A row that is not a whole
 * number of 256-element blocks falls back to the 32-element type llama.cpp uses instead.
 */
record KQuantMix(GGMLType base, int layers, boolean tiedOutput) implements TensorTypes {

    @Override
    public GGMLType typeOf(String name, long[] dims) {
        if (dims.length == 1) return GGMLType.F32;
        GGMLType chosen = base;
        if (name.equals("output.weight") || (tiedOutput && name.equals("token_embd.weight"))) {
            chosen = GGMLType.Q6_K;
        } else if ((name.endsWith(".attn_v.weight") || name.endsWith(".ffn_down.weight")) && moreBits(layerOf(name))) {
            chosen = GGMLType.Q6_K;
        }
        return dims[0] % 256 == 0 ? chosen : fallback(chosen);
    }

    private boolean moreBits(int layer) {
        return layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
    }

    private static int layerOf(String name) {
        int start = "blk.".length();
        return Integer.parseInt(name.substring(start, name.indexOf('.', start)));
    }

    private static GGMLType fallback(GGMLType type) {
        return switch (type) {
            case Q4_K -> GGMLType.Q5_0;
            case Q5_K -> GGMLType.Q5_1;
            default -> GGMLType.Q8_0;
        };
    }
}
