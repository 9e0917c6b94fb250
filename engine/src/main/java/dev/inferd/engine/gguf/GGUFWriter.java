package dev.inferd.engine.gguf;

import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes GGUF v3 files that {@link GGUFFile} and llama.cpp read: for test models, and for synthetic
 * benchmark models with the shapes of real ones.
 *
 * <p>Metadata is typed explicitly, because llama.cpp checks the type of each key: counts, lengths
 * and token ids are {@code u32} ({@link #put(String, int)}), {@code tokenizer.ggml.token_type} is an
 * {@code i32} array ({@link #put(String, int[])}), epsilons and scales are {@code f32}
 * ({@link #put(String, float)}).
 *
 * <p>Tensor data is streamed: a tensor added with a {@link TensorContent} is produced only while
 * {@link #write} runs, one tensor at a time, so a model bigger than the heap can be written (quantize it
 * row by row into the stream). {@link #write} checks that each tensor wrote exactly its size.
 *
 * <pre>{@code
 * new GGUFWriter()
 *     .put("general.architecture", "llama")
 *     .put("llama.block_count", 2)
 *     .put("llama.attention.layer_norm_rms_epsilon", 1e-5f)
 *     .addTensor("output_norm.weight", GGMLType.F32, new long[] {64}, bytes)
 *     .addTensor("token_embd.weight", GGMLType.Q8_0, new long[] {64, 512}, out -> writeRows(out))
 *     .write(path);
 * }</pre>
 */
public final class GGUFWriter {

    /** GGUF metadata value types, numbered as in the file format. */
    public enum ValueType {
        UINT8(0), INT8(1), UINT16(2), INT16(3), UINT32(4), INT32(5), FLOAT32(6), BOOL(7), STRING(8),
        ARRAY(9), UINT64(10), INT64(11), FLOAT64(12);

        final int id;

        ValueType(int id) {
            this.id = id;
        }
    }

    /** Produces one tensor's bytes into the file, called once while {@link #write} runs. */
    @FunctionalInterface
    public interface TensorContent {
        void writeTo(OutputStream out) throws IOException;
    }

    private record Value(ValueType type, ValueType itemType, Object value) {
    }

    private record PendingTensor(String name, GGMLType type, long[] dims, long byteSize, TensorContent content) {
    }

    private final Map<String, Value> metadata = new LinkedHashMap<>();
    private final List<PendingTensor> tensors = new ArrayList<>();
    private final Set<String> tensorNames = new HashSet<>();
    private int alignment = GGUFFile.DEFAULT_ALIGNMENT;

    // ---- metadata ----

    public GGUFWriter put(String key, String value) {
        return putValue(key, ValueType.STRING, null, requireNonNull(key, value));
    }

    public GGUFWriter put(String key, boolean value) {
        return putValue(key, ValueType.BOOL, null, value);
    }

    /** An {@code f32} value (norm epsilons, rope bases, scales). */
    public GGUFWriter put(String key, float value) {
        return putValue(key, ValueType.FLOAT32, null, value);
    }

    /** A {@code u32} value: counts, lengths and token ids, the type llama.cpp reads them as. */
    public GGUFWriter put(String key, int value) {
        if (value < 0) throw new IllegalArgumentException(key + ": " + value + " is negative; use putInt32 for a signed value");
        return putValue(key, ValueType.UINT32, null, (long) value);
    }

    /** A value of any scalar type; {@code value} is a {@link Number}, {@link Boolean} or {@link String}. */
    public GGUFWriter put(String key, ValueType type, Object value) {
        if (type == ValueType.ARRAY) throw new IllegalArgumentException(key + ": use putArray for arrays");
        checkScalar(key, type, value);
        return putValue(key, type, null, value);
    }

    public GGUFWriter putInt32(String key, int value) {
        return putValue(key, ValueType.INT32, null, value);
    }

    public GGUFWriter putUInt64(String key, long value) {
        return putValue(key, ValueType.UINT64, null, value);
    }

    public GGUFWriter putInt64(String key, long value) {
        return putValue(key, ValueType.INT64, null, value);
    }

    public GGUFWriter putFloat64(String key, double value) {
        return putValue(key, ValueType.FLOAT64, null, value);
    }

    /** A string array (tokens, merges). */
    public GGUFWriter put(String key, String[] values) {
        return putArray(key, ValueType.STRING, values.clone());
    }

    public GGUFWriter put(String key, List<String> values) {
        return putArray(key, ValueType.STRING, values.toArray(String[]::new));
    }

    /** An {@code f32} array (token scores). */
    public GGUFWriter put(String key, float[] values) {
        return putArray(key, ValueType.FLOAT32, values.clone());
    }

    /** An {@code i32} array ({@code tokenizer.ggml.token_type}, as llama.cpp writes it). */
    public GGUFWriter put(String key, int[] values) {
        return putArray(key, ValueType.INT32, values.clone());
    }

    public GGUFWriter put(String key, boolean[] values) {
        return putArray(key, ValueType.BOOL, values.clone());
    }

    /**
     * An array of {@code itemType}: {@code values} is a {@code byte[]} (u8/i8), {@code short[]} (u16/i16),
     * {@code int[]} (u32/i32), {@code long[]} (u64/i64), {@code float[]}, {@code double[]},
     * {@code boolean[]} or {@code String[]}.
     */
    public GGUFWriter putArray(String key, ValueType itemType, Object values) {
        Class<?> expected = switch (itemType) {
            case UINT8, INT8 -> byte[].class;
            case UINT16, INT16 -> short[].class;
            case UINT32, INT32 -> int[].class;
            case UINT64, INT64 -> long[].class;
            case FLOAT32 -> float[].class;
            case FLOAT64 -> double[].class;
            case BOOL -> boolean[].class;
            case STRING -> String[].class;
            case ARRAY -> throw new IllegalArgumentException(key + ": arrays of arrays are not supported");
        };
        if (!expected.isInstance(values)) {
            throw new IllegalArgumentException(key + ": an array of " + itemType + " needs a " + expected.getSimpleName()
                    + ", got " + (values == null ? "null" : values.getClass().getSimpleName()));
        }
        if (values instanceof String[] strings) {
            for (String s : strings) requireNonNull(key, s);
        }
        return putValue(key, ValueType.ARRAY, itemType, values);
    }

    /** Tensor data alignment; written as {@code general.alignment} when not the default 32. */
    public GGUFWriter alignment(int bytes) {
        if (bytes <= 0 || Integer.bitCount(bytes) != 1 || bytes % 8 != 0) {
            throw new IllegalArgumentException("alignment " + bytes + " is not a power of two multiple of 8");
        }
        alignment = bytes;
        if (bytes == GGUFFile.DEFAULT_ALIGNMENT) metadata.remove("general.alignment");
        else putValue("general.alignment", ValueType.UINT32, null, (long) bytes);
        return this;
    }

    // ---- tensors ----

    /**
     * A tensor whose bytes are already in memory. {@code dims[0]} is the row length (ggml order): a
     * weight matrix of {@code out} rows of {@code in} elements has {@code dims = {in, out}}.
     */
    public GGUFWriter addTensor(String name, GGMLType type, long[] dims, byte[] data) {
        long size = checkTensor(name, type, dims);
        if (data.length != size) {
            throw new IllegalArgumentException("tensor " + name + " of " + type + " " + Arrays.toString(dims) + " needs "
                    + size + " bytes, got " + data.length);
        }
        return add(new PendingTensor(name, type, dims.clone(), size, out -> out.write(data)));
    }

    /** A tensor whose bytes {@code content} writes while {@link #write} runs. */
    public GGUFWriter addTensor(String name, GGMLType type, long[] dims, TensorContent content) {
        long size = checkTensor(name, type, dims);
        return add(new PendingTensor(name, type, dims.clone(), size, content));
    }

    // ---- output ----

    /** Writes the file, replacing {@code path}; tensor contents are produced in the order they were added. */
    public void write(Path path) throws IOException {
        try (OutputStream file = Files.newOutputStream(path);
             var out = new LittleEndianOutput(new BufferedOutputStream(file, 1 << 20))) {
            out.writeInt(GGUFFile.MAGIC);
            out.writeInt(3);
            out.writeLong(tensors.size());
            out.writeLong(metadata.size());
            for (var e : metadata.entrySet()) {
                out.writeString(e.getKey());
                writeValue(out, e.getValue());
            }
            long offset = 0;
            for (PendingTensor t : tensors) {
                out.writeString(t.name);
                out.writeInt(t.dims.length);
                for (long d : t.dims) out.writeLong(d);
                out.writeInt(t.type.id());
                out.writeLong(offset);
                offset = alignUp(offset + t.byteSize);
            }
            out.padTo(alignment);
            for (PendingTensor t : tensors) {
                long start = out.written();
                t.content.writeTo(new FilterOutputStream(out) {
                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        out.write(b, off, len);
                    }

                    @Override
                    public void close() {
                        // the file stays open for the next tensor
                    }
                });
                long wrote = out.written() - start;
                if (wrote != t.byteSize) {
                    throw new IllegalStateException("tensor " + t.name + " wrote " + wrote + " bytes, its size is " + t.byteSize);
                }
                out.padTo(alignment);
            }
        }
    }

    // ---- internals ----

    private GGUFWriter putValue(String key, ValueType type, ValueType itemType, Object value) {
        if (key == null || key.isEmpty()) throw new IllegalArgumentException("metadata key is empty");
        if (key.equals("general.alignment") && type != ValueType.UINT32) {
            throw new IllegalArgumentException("general.alignment must be u32; use alignment(int)");
        }
        metadata.put(key, new Value(type, itemType, value));
        return this;
    }

    private GGUFWriter add(PendingTensor t) {
        tensorNames.add(t.name);
        tensors.add(t);
        return this;
    }

    private long checkTensor(String name, GGMLType type, long[] dims) {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("tensor name is empty");
        if (tensorNames.contains(name)) throw new IllegalArgumentException("tensor " + name + " added twice");
        if (dims.length < 1 || dims.length > 4) {
            throw new IllegalArgumentException("tensor " + name + " has " + dims.length + " dims; GGUF allows 1 to 4");
        }
        long elements = 1;
        for (long d : dims) {
            if (d <= 0) throw new IllegalArgumentException("tensor " + name + " has dims " + Arrays.toString(dims));
            elements = Math.multiplyExact(elements, d);
        }
        if (dims[0] % type.blockSize() != 0) {
            throw new IllegalArgumentException("tensor " + name + ": row length " + dims[0] + " is not a multiple of the "
                    + type + " block size " + type.blockSize());
        }
        return type.bytesFor(elements);
    }

    private long alignUp(long offset) {
        return (offset + alignment - 1) / alignment * alignment;
    }

    private static String requireNonNull(String key, String value) {
        if (value == null) throw new IllegalArgumentException(key + ": null string");
        return value;
    }

    private static void checkScalar(String key, ValueType type, Object value) {
        boolean ok = switch (type) {
            case BOOL -> value instanceof Boolean;
            case STRING -> value instanceof String;
            case FLOAT32, FLOAT64 -> value instanceof Number;
            default -> value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long;
        };
        if (!ok) throw new IllegalArgumentException(key + ": " + value + " is not a " + type);
    }

    private static void writeValue(LittleEndianOutput out, Value v) throws IOException {
        out.writeInt(v.type.id);
        if (v.type == ValueType.ARRAY) {
            out.writeInt(v.itemType.id);
            writeArray(out, v.itemType, v.value);
        } else {
            writeScalar(out, v.type, v.value);
        }
    }

    private static void writeScalar(LittleEndianOutput out, ValueType type, Object value) throws IOException {
        switch (type) {
            case UINT8, INT8 -> out.write(((Number) value).intValue());
            case UINT16, INT16 -> out.writeShort(((Number) value).intValue());
            case UINT32, INT32 -> out.writeInt(((Number) value).intValue());
            case UINT64, INT64 -> out.writeLong(((Number) value).longValue());
            case FLOAT32 -> out.writeInt(Float.floatToRawIntBits(((Number) value).floatValue()));
            case FLOAT64 -> out.writeLong(Double.doubleToRawLongBits(((Number) value).doubleValue()));
            case BOOL -> out.write((Boolean) value ? 1 : 0);
            case STRING -> out.writeString((String) value);
            case ARRAY -> throw new AssertionError();
        }
    }

    private static void writeArray(LittleEndianOutput out, ValueType itemType, Object values) throws IOException {
        switch (values) {
            case byte[] a -> { out.writeLong(a.length); out.write(a); }
            case short[] a -> { out.writeLong(a.length); for (short s : a) out.writeShort(s); }
            case int[] a -> { out.writeLong(a.length); for (int i : a) out.writeInt(i); }
            case long[] a -> { out.writeLong(a.length); for (long l : a) out.writeLong(l); }
            case float[] a -> { out.writeLong(a.length); for (float f : a) out.writeInt(Float.floatToRawIntBits(f)); }
            case double[] a -> { out.writeLong(a.length); for (double d : a) out.writeLong(Double.doubleToRawLongBits(d)); }
            case boolean[] a -> { out.writeLong(a.length); for (boolean b : a) out.write(b ? 1 : 0); }
            case String[] a -> { out.writeLong(a.length); for (String s : a) out.writeString(s); }
            default -> throw new AssertionError(itemType);
        }
    }

    /** Little-endian primitives over a stream, counting the bytes written (for offsets and padding). */
    private static final class LittleEndianOutput extends OutputStream {
        private final OutputStream out;
        private final byte[] scratch = new byte[8];
        private long written;

        LittleEndianOutput(OutputStream out) {
            this.out = out;
        }

        long written() { return written; }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            written++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            written += len;
        }

        void writeShort(int v) throws IOException {
            scratch[0] = (byte) v;
            scratch[1] = (byte) (v >>> 8);
            write(scratch, 0, 2);
        }

        void writeInt(int v) throws IOException {
            for (int i = 0; i < 4; i++) scratch[i] = (byte) (v >>> (8 * i));
            write(scratch, 0, 4);
        }

        void writeLong(long v) throws IOException {
            for (int i = 0; i < 8; i++) scratch[i] = (byte) (v >>> (8 * i));
            write(scratch, 0, 8);
        }

        void writeString(String s) throws IOException {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            writeLong(b.length);
            write(b);
        }

        void padTo(int alignment) throws IOException {
            while (written % alignment != 0) write(0);
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }
}
