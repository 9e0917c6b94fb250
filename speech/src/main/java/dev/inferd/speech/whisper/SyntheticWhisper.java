package dev.inferd.speech.whisper;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.tensor.format.Quantizer;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Writes a whisper.cpp model file with the exact shapes of a real Whisper ({@link WhisperShape}) and
 * random weights, loadable by this project and by whisper.cpp: for tests and benchmarks.
 *
 * <p>As whisper.cpp lays a model out: matrices in the chosen type, convolution kernels in F16 (F32 in
 * an F32 file), biases, norms and positional embeddings in F32. The vocabulary holds the printable
 * ASCII characters (the blank among them, which whisper.cpp looks up) and made-up ASCII words, so any
 * decoded text is valid UTF-8. Values are uniform, drawn row by row while writing (a large-v3 file
 * is written with a few megabytes of heap); each tensor has a generator of its own, seeded by the
 * seed and its name. Matrices have standard deviation {@code 1/sqrt(row length)}; the token embedding
 * {@code embeddingStd}: a large one makes every greedy choice win by a clear margin.
 */
public final class SyntheticWhisper {
    private static final int QUANTIZATION_VERSION = 2;

    private SyntheticWhisper() {
    }

    /** {@code <shape>:<type>} as the bench command takes it, e.g. {@code whisper-tiny:F16}. */
    public record Spec(WhisperShape shape, GGMLType type, long seed, float embeddingStd) {
        public static Spec parse(String text) {
            String[] parts = text.split(":", -1);
            if (parts.length != 2) {
                throw new IllegalArgumentException("a synthetic Whisper is <shape>:<type>, e.g. whisper-tiny:F16; shapes: "
                        + WhisperShape.KNOWN.stream().map(WhisperShape::name).toList() + "; got '" + text + "'");
            }
            GGMLType type;
            try {
                type = GGMLType.valueOf(parts[1].strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown weight type '" + parts[1] + "'; Whisper files take F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K-Q6_K");
            }
            return new Spec(WhisperShape.named(parts[0].strip()), type, 1, 0.02f);
        }

        public String fileName() {
            return "ggml-" + shape.name() + "-" + type + "-seed" + seed + ".bin";
        }

        public Path write(Path file) throws IOException {
            return SyntheticWhisper.write(this, file);
        }
    }

    /** A tensor of the file: ggml dims ({@code ne[0]} the row length), type and spread of its values. */
    public record Planned(String name, GGMLType type, long[] ne, float std, float mean) {
        long elements() {
            long n = 1;
            for (long d : ne) n *= d;
            return n;
        }
    }

    public static int fileType(GGMLType type) {
        return switch (type) {
            case F32 -> 0;
            case F16 -> 1;
            case Q4_0 -> 2 + QUANTIZATION_VERSION * 1000;
            case Q4_1 -> 3 + QUANTIZATION_VERSION * 1000;
            case Q8_0 -> 7 + QUANTIZATION_VERSION * 1000;
            case Q5_0 -> 8 + QUANTIZATION_VERSION * 1000;
            case Q5_1 -> 9 + QUANTIZATION_VERSION * 1000;
            case Q2_K -> 10 + QUANTIZATION_VERSION * 1000;
            case Q3_K -> 11 + QUANTIZATION_VERSION * 1000;
            case Q4_K -> 12 + QUANTIZATION_VERSION * 1000;
            case Q5_K -> 13 + QUANTIZATION_VERSION * 1000;
            case Q6_K -> 14 + QUANTIZATION_VERSION * 1000;
            default -> throw new IllegalArgumentException("whisper.cpp files do not hold " + type + " weights");
        };
    }

    public static List<Planned> plan(WhisperShape s, GGMLType type, float embeddingStd) {
        fileType(type);
        if (s.nState() % type.blockSize() != 0) {
            throw new IllegalArgumentException(s.name() + " has width " + s.nState() + ", not a whole number of " + type + " blocks of " + type.blockSize());
        }
        GGMLType conv = type == GGMLType.F32 ? GGMLType.F32 : GGMLType.F16;
        int d = s.nState(), ff = 4 * d;
        var list = new ArrayList<Planned>();
        record Add(List<Planned> list, GGMLType type) {
            void matrix(String name, int rows, int cols) { list.add(new Planned(name, type, new long[]{cols, rows}, (float) (1 / Math.sqrt(cols)), 0)); }
            void vector(String name, int n, float std) { list.add(new Planned(name, GGMLType.F32, new long[]{n}, std, 0)); }
            void norm(String prefix, int n) {
                list.add(new Planned(prefix + ".weight", GGMLType.F32, new long[]{n}, 0.05f, 1));
                list.add(new Planned(prefix + ".bias", GGMLType.F32, new long[]{n}, 0.05f, 0));
            }
            void attention(String p, int d) {
                matrix(p + ".query.weight", d, d);
                vector(p + ".query.bias", d, 0.05f);
                matrix(p + ".key.weight", d, d);
                matrix(p + ".value.weight", d, d);
                vector(p + ".value.bias", d, 0.05f);
                matrix(p + ".out.weight", d, d);
                vector(p + ".out.bias", d, 0.05f);
            }
            void block(String p, int d, boolean cross) {
                norm(p + ".attn_ln", d);
                attention(p + ".attn", d);
                if (cross) {
                    norm(p + ".cross_attn_ln", d);
                    attention(p + ".cross_attn", d);
                }
                norm(p + ".mlp_ln", d);
                matrix(p + ".mlp.0.weight", 4 * d, d);
                vector(p + ".mlp.0.bias", 4 * d, 0.05f);
                matrix(p + ".mlp.2.weight", d, 4 * d);
                vector(p + ".mlp.2.bias", d, 0.05f);
            }
        }
        var add = new Add(list, type);
        list.add(new Planned("encoder.positional_embedding", GGMLType.F32, new long[]{d, WhisperShape.AUDIO_CTX}, 0.5f, 0));
        list.add(new Planned("encoder.conv1.weight", conv, new long[]{3, s.nMels(), d}, (float) (1 / Math.sqrt(3.0 * s.nMels())), 0));
        list.add(new Planned("encoder.conv1.bias", GGMLType.F32, new long[]{1, d}, 0.05f, 0));
        list.add(new Planned("encoder.conv2.weight", conv, new long[]{3, d, d}, (float) (1 / Math.sqrt(3.0 * d)), 0));
        list.add(new Planned("encoder.conv2.bias", GGMLType.F32, new long[]{1, d}, 0.05f, 0));
        for (int l = 0; l < s.nAudioLayer(); l++) add.block("encoder.blocks." + l, d, false);
        add.norm("encoder.ln_post", d);
        list.add(new Planned("decoder.token_embedding.weight", type, new long[]{d, s.nVocab()}, embeddingStd, 0));
        list.add(new Planned("decoder.positional_embedding", GGMLType.F32, new long[]{d, WhisperShape.TEXT_CTX}, 0.02f, 0));
        for (int l = 0; l < s.nTextLayer(); l++) add.block("decoder.blocks." + l, d, true);
        add.norm("decoder.ln", d);
        return list;
    }

    static Path write(Spec spec, Path file) throws IOException {
        WhisperShape s = spec.shape();
        var h = s.hparams(fileType(spec.type()));
        var tensors = plan(s, spec.type(), spec.embeddingStd());
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
            out.write(ints(WhisperModelFile.MAGIC, h.nVocab(), h.nAudioCtx(), h.nAudioState(), h.nAudioHead(), h.nAudioLayer(),
                    h.nTextCtx(), h.nTextState(), h.nTextHead(), h.nTextLayer(), h.nMels(), h.ftype()));
            float[] filters = MelFilters.of(s.nMels());
            out.write(ints(s.nMels(), MelFilters.BINS));
            out.write(floats(filters, 0, filters.length));
            int words = s.nVocab() >= 51865 ? 50257 : 50256;
            out.write(ints(words));
            for (int i = 0; i < words; i++) {
                byte[] w = i >= 32 && i < 127 ? new byte[]{(byte) i} : (" w" + i).getBytes(StandardCharsets.US_ASCII);
                out.write(ints(w.length));
                out.write(w);
            }
            for (Planned t : tensors) writeTensor(out, t, spec.seed());
        }
        return file;
    }

    private static void writeTensor(OutputStream out, Planned t, long seed) throws IOException {
        byte[] name = t.name().getBytes(StandardCharsets.UTF_8);
        int[] header = new int[3 + t.ne().length];
        header[0] = t.ne().length;
        header[1] = name.length;
        header[2] = t.type().id();
        for (int i = 0; i < t.ne().length; i++) header[3 + i] = Math.toIntExact(t.ne()[i]);
        out.write(ints(header));
        out.write(name);
        var random = new SplittableRandom(seed * 1_000_003L + t.name().hashCode());
        int rowLength = Math.toIntExact(t.ne()[0]);
        long rows = t.elements() / rowLength;
        int rowsPerChunk = Math.max(1, (1 << 16) / rowLength);
        float half = (float) (t.std() * Math.sqrt(3));
        float[] chunk = new float[rowsPerChunk * rowLength];
        for (long r = 0; r < rows; r += rowsPerChunk) {
            int n = (int) Math.min(rowsPerChunk, rows - r) * rowLength;
            for (int i = 0; i < n; i++) chunk[i] = t.mean() + (float) random.nextDouble(-half, half);
            if (Quantizer.supports(t.type())) {
                out.write(t.type() == GGMLType.F32 ? floats(chunk, 0, n) : Quantizer.quantize(t.type(), chunk, 0, n));
            } else {
                out.write(Quantizer.randomBlocks(t.type(), n / t.type().blockSize(), random.nextLong(), half));
            }
        }
    }

    private static byte[] ints(int... values) {
        var b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : values) b.putInt(v);
        return b.array();
    }

    private static byte[] floats(float[] values, int from, int n) {
        var b = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) b.putFloat(values[from + i]);
        return b.array();
    }
}
