package dev.inferd.speech.whisper;

import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFFormatException;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.tensor.WeightMatrix;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A whisper.cpp model file ({@code ggml-*.bin}), memory-mapped: the magic {@code "ggml"}, the
 * {@link WhisperHParams}, the mel filter bank, the vocabulary as raw token bytes, then the tensors
 * one after another (dims, name, type, data, no padding) up to the end of the file. Weights stay in
 * the mapping; {@link #matrix} hands out engine matrices over it.
 */
public final class WhisperModelFile implements AutoCloseable {
    /** "ggml" read as a little-endian u32. */
    public static final int MAGIC = 0x67676d6c;

    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;

    private final Path path;
    private final Arena arena;
    private final MemorySegment file;
    private final WhisperHParams hparams;
    private final int filterCount, filterLength;
    private final float[] melFilters;
    private final List<byte[]> words;
    private final Map<String, WhisperTensor> tensors;
    private long pos;

    private WhisperModelFile(Path path, Arena arena, MemorySegment file) {
        this.path = path;
        this.arena = arena;
        this.file = file;
        if (file.byteSize() < 4 || file.get(I32, 0) != MAGIC) {
            throw new WhisperFormatException(path + " is not a whisper.cpp model file (bad magic)");
        }
        pos = 4;
        int[] h = new int[11];
        for (int i = 0; i < h.length; i++) h[i] = readI32();
        hparams = new WhisperHParams(h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10] % 1000);
        hparams.validate();

        filterCount = readI32();
        filterLength = readI32();
        if (filterCount != hparams.nMels() || filterLength <= 0 || filterLength > 4096) {
            throw new WhisperFormatException(path + ": mel filters " + filterCount + "x" + filterLength + " do not fit " + hparams.nMels() + " mel bins");
        }
        melFilters = new float[filterCount * filterLength];
        need(4L * melFilters.length, "mel filters");
        MemorySegment.copy(file, F32, pos, melFilters, 0, melFilters.length);
        pos += 4L * melFilters.length;

        int wordCount = readI32();
        if (wordCount < 0 || wordCount > hparams.nVocab()) {
            throw new WhisperFormatException(path + ": " + wordCount + " vocabulary entries for " + hparams.nVocab() + " tokens");
        }
        var list = new ArrayList<byte[]>(wordCount);
        for (int i = 0; i < wordCount; i++) {
            int len = readI32();
            if (len < 0 || len > 1024) throw new WhisperFormatException(path + ": vocabulary entry " + i + " has length " + len);
            need(len, "vocabulary");
            list.add(file.asSlice(pos, len).toArray(ValueLayout.JAVA_BYTE));
            pos += len;
        }
        words = Collections.unmodifiableList(list);

        var map = new LinkedHashMap<String, WhisperTensor>();
        while (pos < file.byteSize()) {
            int nDims = readI32();
            int nameLength = readI32();
            int typeId = readI32();
            if (nDims < 1 || nDims > 4 || nameLength <= 0 || nameLength > 256) {
                throw new WhisperFormatException(path + ": bad tensor header at byte " + (pos - 12));
            }
            long[] ne = new long[nDims];
            for (int d = 0; d < nDims; d++) {
                ne[d] = readI32();
                if (ne[d] <= 0) throw new WhisperFormatException(path + ": tensor dimension " + ne[d]);
            }
            need(nameLength, "tensor name");
            String name = new String(file.asSlice(pos, nameLength).toArray(ValueLayout.JAVA_BYTE), java.nio.charset.StandardCharsets.UTF_8);
            pos += nameLength;
            GGMLType type;
            try {
                type = GGMLType.fromId(typeId);
            } catch (GGUFFormatException e) {
                throw new WhisperFormatException(path + ": tensor " + name + " has unknown type id " + typeId);
            }
            var t = new WhisperTensor(name, type, ne, pos);
            need(t.byteSize(), "tensor " + name + " (truncated download?)");
            pos += t.byteSize();
            map.put(name, t);
        }
        tensors = Collections.unmodifiableMap(map);
    }

    /** Maps {@code path} read-only and parses everything but the tensor data. */
    public static WhisperModelFile open(Path path) throws IOException {
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            MemorySegment mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            // a plain native view of the same pages, as the GGUF reader does: the kernels are compiled for native segments
            MemorySegment view = MemorySegment.ofAddress(mapped.address()).reinterpret(mapped.byteSize(), arena, null);
            return new WhisperModelFile(path, arena, view);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    public Path path() { return path; }

    public WhisperHParams hparams() { return hparams; }

    /** The stored mel filter bank, {@code nMels x filterLength} row by row. */
    public float[] melFilters() { return melFilters.clone(); }

    public int melFilterLength() { return filterLength; }

    /** The vocabulary entries stored in the file (the ordinary tokens; specials follow them). */
    public List<byte[]> words() { return words; }

    public Map<String, WhisperTensor> tensors() { return tensors; }

    public WhisperTensor tensor(String name) {
        WhisperTensor t = tensors.get(name);
        if (t == null) throw new WhisperFormatException(path + " has no tensor " + name);
        return t;
    }

    /** The data of {@code t} in the mapping. */
    public MemorySegment data(WhisperTensor t) {
        return file.asSlice(t.offset(), t.byteSize());
    }

    /** Tensor {@code name} as a {@code rows x cols} engine matrix over the mapping. */
    public WeightMatrix matrix(String name) {
        WhisperTensor t = tensor(name);
        return WeightMatrices.of(t.type(), t.rows(), t.cols(), data(t));
    }

    /** Tensor {@code name} as floats in the heap: for biases, norms, convolutions and positional embeddings. */
    public float[] floats(String name) {
        WhisperTensor t = tensor(name);
        int n = Math.toIntExact(t.elements());
        return switch (t.type()) {
            case F32 -> data(t).toArray(ValueLayout.JAVA_FLOAT_UNALIGNED);
            default -> Quantizer.dequantize(t.type(), data(t).toArray(ValueLayout.JAVA_BYTE), n);
        };
    }

    private int readI32() {
        need(4, "header");
        int v = file.get(I32, pos);
        pos += 4;
        return v;
    }

    private void need(long bytes, String what) {
        if (pos + bytes > file.byteSize()) throw new WhisperFormatException(path + ": the file ends inside the " + what);
    }

    @Override
    public void close() {
        arena.close();
    }
}
