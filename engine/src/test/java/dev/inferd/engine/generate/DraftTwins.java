package dev.inferd.engine.generate;

import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.gguf.GGUFWriter;
import dev.inferd.engine.gguf.GGUFWriter.ValueType;
import dev.inferd.engine.gguf.TensorInfo;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Map;

/**
 * Copies of a model file for speculative decoding's tests: one whose output head is rolled by one row
 * (its favourite token is always the next id after the original's favourite minus one, so as a draft
 * it never agrees with the original), one with a token's text changed (a vocabulary that does not match).
 */
final class DraftTwins {
    private DraftTwins() {
    }

    /** The same model with its output rows rolled: logit {@code t} is the original's logit {@code t + 1}. */
    static Path disagreeing(Path source, Path out) throws IOException {
        return copy(source, out, true, Map.of());
    }

    /** The same model with other texts for some token ids. */
    static Path renamed(Path source, Path out, Map<Integer, String> texts) throws IOException {
        return copy(source, out, false, texts);
    }

    private static Path copy(Path source, Path out, boolean rollOutput, Map<Integer, String> texts) throws IOException {
        try (GGUFFile in = GGUFFile.open(source)) {
            var writer = new GGUFWriter();
            for (Map.Entry<String, Object> e : in.metadata().entrySet()) {
                String key = e.getKey();
                if (key.equals("general.alignment")) continue;
                Object v = e.getValue();
                if (key.equals("tokenizer.ggml.tokens") && !texts.isEmpty()) {
                    String[] tokens = ((String[]) v).clone();
                    texts.forEach((id, text) -> tokens[id] = text);
                    v = tokens;
                }
                switch (v) {
                    case String s -> writer.put(key, s);
                    case Boolean b -> writer.put(key, b);
                    case Float f -> writer.put(key, f);
                    case Double d -> writer.putFloat64(key, d);
                    case Integer i -> writer.putInt32(key, i);
                    case Long l -> writer.putUInt64(key, l);
                    case String[] a -> writer.put(key, a);
                    case float[] a -> writer.put(key, a);
                    case int[] a -> writer.put(key, a);
                    case boolean[] a -> writer.put(key, a);
                    case long[] a -> writer.putArray(key, ValueType.INT64, a);
                    case byte[] a -> writer.putArray(key, ValueType.INT8, a);
                    case short[] a -> writer.putArray(key, ValueType.INT16, a);
                    case double[] a -> writer.putArray(key, ValueType.FLOAT64, a);
                    default -> throw new IllegalArgumentException("metadata " + key + " of " + v.getClass());
                }
            }
            String head = in.tensors().containsKey("output.weight") ? "output.weight" : "token_embd.weight";
            for (TensorInfo t : in.tensors().values()) {
                byte[] data = in.tensorData(t).toArray(ValueLayout.JAVA_BYTE);
                if (rollOutput && t.name().equals(head)) {
                    int rows = (int) t.dims()[1];
                    int rowBytes = data.length / rows;
                    byte[] rolled = new byte[data.length];
                    for (int r = 0; r < rows; r++) System.arraycopy(data, ((r + 1) % rows) * rowBytes, rolled, r * rowBytes, rowBytes);
                    data = rolled;
                }
                writer.addTensor(t.name(), t.type(), t.dims(), data);
            }
            writer.write(out);
        }
        return out;
    }
}
