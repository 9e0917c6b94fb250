package dev.inferd.engine.model.synthetic;

import dev.inferd.engine.gguf.GGMLType;

import java.util.List;
import java.util.Locale;

/**
 * A file type as {@code llama-quantize} names it: the value of {@code general.file_type} (llama.cpp's
 * {@code llama_ftype}) and the rule that picks each tensor's type.
 *
 * <p>For F32, F16, BF16, Q8_0 and Q4_0 every matrix, the token embedding included, has that type
 * (llama-quantize gives a tied model's embedding Q6_K under Q4_0; this engine has no Q6_K kernel yet,
 * and a uniform file keeps the comparison with llama.cpp simple).
 */
public record WeightFormat(String name, int fileType, TensorTypes types) {

    public static final WeightFormat F32 = uniform("F32", 0, GGMLType.F32);
    public static final WeightFormat F16 = uniform("F16", 1, GGMLType.F16);
    public static final WeightFormat Q4_0 = uniform("Q4_0", 2, GGMLType.Q4_0);
    public static final WeightFormat Q8_0 = uniform("Q8_0", 7, GGMLType.Q8_0);
    public static final WeightFormat BF16 = uniform("BF16", 32, GGMLType.BF16);

    // TODO(kquant): add Q4_K_M (file type 15) and friends once the k-quant quantizers are merged: a
    // TensorTypes that follows llama-quantize's choices (Q6_K for output/tied embedding and half of
    // ffn_down/attn_v, Q4_K elsewhere, a 32-block fallback for rows not a multiple of 256).
    public static final List<WeightFormat> KNOWN = List.of(F32, F16, BF16, Q8_0, Q4_0);

    /** The format called {@code name} (case-insensitive). */
    public static WeightFormat named(String name) {
        String n = name.toUpperCase(Locale.ROOT);
        return KNOWN.stream().filter(f -> f.name.equals(n)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "unknown weight type '" + name + "'; known: " + KNOWN.stream().map(WeightFormat::name).toList()));
    }

    private static WeightFormat uniform(String name, int fileType, GGMLType type) {
        return new WeightFormat(name, fileType, TensorTypes.uniform(type));
    }
}
