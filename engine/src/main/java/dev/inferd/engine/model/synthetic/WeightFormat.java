package dev.inferd.engine.model.synthetic;

import dev.inferd.engine.gguf.GGMLType;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * A file type as {@code llama-quantize} names it: the value of {@code general.file_type} (llama.cpp's
 * {@code llama_ftype}) and the rule that picks each tensor's type.
 *
 * <p>For F32, F16, BF16, Q8_0, Q4_0 and Q5_0 every matrix, the token embedding included, has that type
 * (llama-quantize gives a tied model's embedding Q6_K under Q4_0; a uniform file keeps the comparison
 * with llama.cpp simple). The k-quant mixes follow llama-quantize's choices ({@link KQuantMix}).
 *
 * @param rule the tensor types for a given shape (the mixes depend on the layer count and on tying)
 */
public record WeightFormat(String name, int fileType, Function<SyntheticShape, TensorTypes> rule) {

    public static final WeightFormat F32 = uniform("F32", 0, GGMLType.F32);
    public static final WeightFormat F16 = uniform("F16", 1, GGMLType.F16);
    public static final WeightFormat Q4_0 = uniform("Q4_0", 2, GGMLType.Q4_0);
    public static final WeightFormat Q8_0 = uniform("Q8_0", 7, GGMLType.Q8_0);
    public static final WeightFormat Q5_0 = uniform("Q5_0", 8, GGMLType.Q5_0);
    public static final WeightFormat BF16 = uniform("BF16", 32, GGMLType.BF16);

    public static final WeightFormat Q4_K_M = mix("Q4_K_M", 15, GGMLType.Q4_K);
    public static final WeightFormat Q5_K_M = mix("Q5_K_M", 17, GGMLType.Q5_K);
    public static final WeightFormat Q6_K = mix("Q6_K", 18, GGMLType.Q6_K);
    public static final List<WeightFormat> KNOWN = List.of(F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K_M, Q5_K_M, Q6_K);

    /** The tensor types of this format for {@code shape}. */
    public TensorTypes types(SyntheticShape shape) {
        return rule.apply(shape);
    }

    /** The format called {@code name} (case-insensitive). */
    public static WeightFormat named(String name) {
        String n = name.toUpperCase(Locale.ROOT);
        return KNOWN.stream().filter(f -> f.name.equals(n)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "unknown weight type '" + name + "'; known: " + KNOWN.stream().map(WeightFormat::name).toList()));
    }

    private static WeightFormat uniform(String name, int fileType, GGMLType type) {
        TensorTypes types = TensorTypes.uniform(type);
        return new WeightFormat(name, fileType, shape -> types);
    }

    private static WeightFormat mix(String name, int fileType, GGMLType base) {
        return new WeightFormat(name, fileType, shape -> new KQuantMix(base, shape.blockCount(), shape.tiedOutput()));
    }
}
