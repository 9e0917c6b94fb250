package dev.inferd.bench;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.gguf.TensorInfo;

import java.util.Comparator;
import java.util.EnumMap;
import java.util.Map;

/**
 * What a model file weighs, for the benchmark table and the decode limit.
 *
 * @param name             {@code general.name}, or the file name
 * @param type             the file type as llama.cpp names it ({@code Q8_0}, {@code Q4_K_M}, ...)
 * @param tensorBytes      all tensors' bytes (llama-bench's "size")
 * @param parameters       all tensors' elements (llama-bench's "params")
 * @param bytesPerToken    the weight bytes one decode step reads: every tensor, except that with a
 *                         separate output head only one row of {@code token_embd} is read (with tied
 *                         embeddings the whole matrix is read as the output head)
 */
public record ModelFootprint(String name, String type, long tensorBytes, long parameters, long bytesPerToken) {

    public static ModelFootprint of(GGUFFile gguf) {
        long bytes = 0;
        long params = 0;
        for (TensorInfo t : gguf.tensors().values()) {
            bytes += t.byteSize();
            params += t.elementCount();
        }
        long perToken = bytes;
        TensorInfo embedding = gguf.tensors().get("token_embd.weight");
        if (embedding != null && gguf.tensors().containsKey("output.weight")) {
            perToken -= embedding.byteSize() - embedding.byteSize() / embedding.rows();
        }
        String name = gguf.getString("general.name", String.valueOf(gguf.path().getFileName()));
        return new ModelFootprint(name, typeName(gguf), bytes, params, perToken);
    }

    /** llama.cpp's name for {@code general.file_type}, or else the type holding most of the weights. */
    static String typeName(GGUFFile gguf) {
        String named = switch (gguf.getInt("general.file_type", -1)) {
            case 0 -> "F32";
            case 1 -> "F16";
            case 2 -> "Q4_0";
            case 3 -> "Q4_1";
            case 7 -> "Q8_0";
            case 8 -> "Q5_0";
            case 9 -> "Q5_1";
            case 10 -> "Q2_K";
            case 11 -> "Q3_K_S";
            case 12 -> "Q3_K_M";
            case 13 -> "Q3_K_L";
            case 14 -> "Q4_K_S";
            case 15 -> "Q4_K_M";
            case 16 -> "Q5_K_S";
            case 17 -> "Q5_K_M";
            case 18 -> "Q6_K";
            case 32 -> "BF16";
            default -> null;
        };
        if (named != null) return named;
        Map<GGMLType, Long> bytesByType = new EnumMap<>(GGMLType.class);
        for (TensorInfo t : gguf.tensors().values()) bytesByType.merge(t.type(), t.byteSize(), Long::sum);
        return bytesByType.entrySet().stream().max(Comparator.comparingLong(Map.Entry::getValue))
                .map(e -> e.getKey().name()).orElse("?");
    }
}
