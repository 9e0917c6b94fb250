package dev.inferd.engine.generate;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.gguf.TensorInfo;

import java.util.EnumMap;
import java.util.Map;

/** Facts about a model file that are shown to users: parameter count and quantization. */
final class ModelFacts {
    private ModelFacts() {
    }

    /** llama.cpp's {@code general.file_type} numbers (LLAMA_FTYPE_MOSTLY_*) to their usual names. */
    private static final Map<Integer, String> FILE_TYPES = Map.ofEntries(
            Map.entry(0, "F32"), Map.entry(1, "F16"), Map.entry(2, "Q4_0"), Map.entry(3, "Q4_1"),
            Map.entry(7, "Q8_0"), Map.entry(8, "Q5_0"), Map.entry(9, "Q5_1"), Map.entry(10, "Q2_K"),
            Map.entry(11, "Q3_K_S"), Map.entry(12, "Q3_K_M"), Map.entry(13, "Q3_K_L"), Map.entry(14, "Q4_K_S"),
            Map.entry(15, "Q4_K_M"), Map.entry(16, "Q5_K_S"), Map.entry(17, "Q5_K_M"), Map.entry(18, "Q6_K"),
            Map.entry(25, "IQ4_NL"), Map.entry(30, "IQ4_XS"), Map.entry(32, "BF16"));

    static long parameterCount(GGUFFile gguf) {
        long n = 0;
        for (TensorInfo t : gguf.tensors().values()) n += t.elementCount();
        return n;
    }

    /** The file's declared type, or else the tensor type holding the most bytes. */
    static String quantization(GGUFFile gguf) {
        String declared = FILE_TYPES.get(gguf.getInt("general.file_type", -1));
        if (declared != null) return declared;
        Map<GGMLType, Long> bytes = new EnumMap<>(GGMLType.class);
        for (TensorInfo t : gguf.tensors().values()) bytes.merge(t.type(), t.byteSize(), Long::sum);
        return bytes.entrySet().stream().max(Map.Entry.comparingByValue()).map(e -> e.getKey().name()).orElse("unknown");
    }

    /** Who made the weights, as far as the file says. */
    static String owner(GGUFFile gguf) {
        for (String key : new String[]{"general.organization", "general.author"}) {
            String v = gguf.getString(key, "").strip();
            if (!v.isEmpty()) return v;
        }
        return "local";
    }
}
