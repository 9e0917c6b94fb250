package dev.inferd.engine.tokenizer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Writes a tensor-less GGUF v3 file with the given metadata, for tokenizer tests on made-up vocabularies. */
final class TinyGguf {
    private final Map<String, Object> metadata = new LinkedHashMap<>();

    TinyGguf put(String key, Object value) {
        metadata.put(key, value);
        return this;
    }

    Path write(Path file) throws IOException {
        var out = new ByteArrayOutputStream();
        out.writeBytes(le(12).putInt(0x46554747).putInt(3).putInt(0).array()); // magic, version, tensor count (low)
        out.writeBytes(le(12).putInt(0).putLong(metadata.size()).array());     // tensor count (high), kv count
        for (var e : metadata.entrySet()) {
            string(out, e.getKey());
            switch (e.getValue()) {
                case String s -> { out.writeBytes(le(4).putInt(8).array()); string(out, s); }
                case Boolean b -> { out.writeBytes(le(4).putInt(7).array()); out.write(b ? 1 : 0); }
                case Integer i -> out.writeBytes(le(8).putInt(5).putInt(i).array());
                case String[] a -> {
                    out.writeBytes(le(16).putInt(9).putInt(8).putLong(a.length).array());
                    for (String s : a) string(out, s);
                }
                case int[] a -> {
                    out.writeBytes(le(16).putInt(9).putInt(5).putLong(a.length).array());
                    for (int i : a) out.writeBytes(le(4).putInt(i).array());
                }
                default -> throw new IllegalArgumentException("unsupported value " + e.getValue());
            }
        }
        return Files.write(file, out.toByteArray());
    }

    private static void string(ByteArrayOutputStream out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeBytes(le(8).putLong(b.length).array());
        out.writeBytes(b);
    }

    private static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }
}
