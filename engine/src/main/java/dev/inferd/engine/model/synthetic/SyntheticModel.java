package dev.inferd.engine.model.synthetic;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFWriter;
import dev.inferd.engine.tensor.format.Quantizer;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Writes a GGUF model with the exact shapes and metadata of a real one ({@link SyntheticShape}) and
 * random weights in a chosen {@link WeightFormat}, loadable by this engine and by llama.cpp (so
 * {@code llama-bench} and {@code inferd bench} can run the very same file).
 *
 * <p>Weights are produced row by row while the file is written, so a model far bigger than the heap
 * is written with a few megabytes of buffers. The content is a pure function of (shape, format,
 * seed): each tensor draws from its own generator seeded by the seed and its name.
 *
 * <p>Scales keep activations ordinary: matrices have standard deviation {@code 1/sqrt(row length)}
 * (a normalized input gives outputs of about unit size), the embedding 0.02 as in trained models,
 * norms about 1, biases 0.1. The values are uniform rather than Gaussian (cheaper to draw; the speed
 * of a forward pass does not depend on them).
 */
public final class SyntheticModel {
    /** Floats generated and quantized at a time. */
    private static final int CHUNK_ELEMENTS = 1 << 18;

    private SyntheticModel() {
    }

    /** How a tensor's values are drawn. */
    public sealed interface Values {
        /** Uniform with mean 0 and this standard deviation. */
        record Random(float std) implements Values {
        }

        /** Uniform in {@code [1 - spread, 1 + spread]} (norm weights). */
        record NearOne(float spread) implements Values {
        }

        /** Exactly these values (Llama 3's RoPE frequency factors). */
        record Fixed(float[] values) implements Values {
        }
    }

    /** One tensor of the file: name, type and ggml dims ({@code dims[0]} is the row length). */
    public record PlannedTensor(String name, GGMLType type, long[] dims, Values values) {
        public long elements() {
            long n = 1;
            for (long d : dims) n *= d;
            return n;
        }

        public long bytes() {
            return type.bytesFor(elements());
        }
    }

    /**
     * What {@code synthetic:<shape>:<type>[:<seed>]} names: a shape, a weight format and a seed.
     */
    public record Spec(SyntheticShape shape, WeightFormat format, long seed) {
        public static final long DEFAULT_SEED = 1;

        /**
         * Parses {@code <shape>:<type>} or {@code <shape>:<type>:<seed>}, e.g. {@code smollm2-135m:Q8_0}; files of
         * one shape and different seeds share the vocabulary but not a single weight (a draft that never agrees).
         */
        public static Spec parse(String text) {
            String[] parts = text.split(":", -1);
            if (parts.length < 2 || parts.length > 3 || Arrays.stream(parts).anyMatch(String::isBlank)) {
                throw new IllegalArgumentException("a synthetic model is <shape>:<type>[:<seed>], e.g. smollm2-135m:Q8_0; shapes: "
                        + SyntheticShape.KNOWN.stream().map(SyntheticShape::name).toList() + ", types: "
                        + WeightFormat.KNOWN.stream().map(WeightFormat::name).toList() + "; got '" + text + "'");
            }
            long seed = DEFAULT_SEED;
            if (parts.length == 3) {
                try {
                    seed = Long.parseLong(parts[2].strip());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("a synthetic model's seed is a whole number, not '" + parts[2] + "'");
                }
            }
            return new Spec(SyntheticShape.named(parts[0].strip()), WeightFormat.named(parts[1].strip()), seed);
        }

        /** A file name that tells the content apart, e.g. {@code smollm2-135m-Q8_0-seed1.gguf}. */
        public String fileName() {
            return shape.name() + "-" + format.name() + "-seed" + seed + ".gguf";
        }

        /** The sum of the tensors' sizes, about the file's size. */
        public long tensorBytes() {
            return plan(shape, format).stream().mapToLong(PlannedTensor::bytes).sum();
        }

        public Path write(Path file) throws IOException {
            return SyntheticModel.write(shape, format, seed, file);
        }
    }

    /** The tensors of the file, in file order, without writing anything. */
    public static List<PlannedTensor> plan(SyntheticShape shape, WeightFormat format) {
        int dim = shape.embeddingLength();
        int q = shape.queryLength();
        String arch = shape.architecture();
        boolean gemma = arch.startsWith("gemma");
        boolean phi3 = arch.equals("phi3");
        int kv = shape.kvLength();
        int ffn = shape.feedForwardLength();
        var tensors = new ArrayList<PlannedTensor>();
        var types = format.types(shape);
        record Adder(List<PlannedTensor> list, TensorTypes types) {
            void matrix(String name, int rows, int cols, float std) {
                long[] dims = {cols, rows};
                list.add(new PlannedTensor(name, types.typeOf(name, dims), dims, new Values.Random(std)));
            }

            void vector(String name, int length, Values values) {
                long[] dims = {length};
                list.add(new PlannedTensor(name, types.typeOf(name, dims), dims, values));
            }
        }
        var add = new Adder(tensors, types);
        add.matrix("token_embd.weight", shape.vocabSize(), dim, 0.02f);
        if (shape.llama3Rope() != null) {
            add.vector("rope_freqs.weight", shape.headDim() / 2,
                    new Values.Fixed(shape.llama3Rope().frequencyFactors(shape.ropeFreqBase(), shape.headDim())));
        }
        if (phi3) { // LongRoPE's per-pair divisors: about 1 for the short context, larger for the long one
            add.vector("rope_factors_short.weight", shape.headDim() / 2, new Values.NearOne(0.1f));
            add.vector("rope_factors_long.weight", shape.headDim() / 2, new Values.NearOne(0.9f));
        }
        var norm = new Values.NearOne(0.1f);
        for (int l = 0; l < shape.blockCount(); l++) {
            String p = "blk." + l + ".";
            add.vector(p + "attn_norm.weight", dim, norm);
            if (phi3) {
                add.matrix(p + "attn_qkv.weight", q + 2 * kv, dim, inverseSqrt(dim));
            } else {
                add.matrix(p + "attn_q.weight", q, dim, inverseSqrt(dim));
                add.matrix(p + "attn_k.weight", kv, dim, inverseSqrt(dim));
                add.matrix(p + "attn_v.weight", kv, dim, inverseSqrt(dim));
            }
            if (arch.equals("qwen3") || arch.equals("gemma3")) {
                add.vector(p + "attn_q_norm.weight", shape.headDim(), norm);
                add.vector(p + "attn_k_norm.weight", shape.headDim(), norm);
            }
            if (shape.qkvBiases()) {
                add.vector(p + "attn_q.bias", q, new Values.Random(0.1f));
                add.vector(p + "attn_k.bias", kv, new Values.Random(0.1f));
                add.vector(p + "attn_v.bias", kv, new Values.Random(0.1f));
            }
            add.matrix(p + "attn_output.weight", dim, q, inverseSqrt(q));
            if (gemma) add.vector(p + "post_attention_norm.weight", dim, norm);
            add.vector(p + "ffn_norm.weight", dim, norm);
            if (phi3) {
                add.matrix(p + "ffn_up.weight", 2 * ffn, dim, inverseSqrt(dim));
            } else {
                add.matrix(p + "ffn_gate.weight", ffn, dim, inverseSqrt(dim));
                add.matrix(p + "ffn_up.weight", ffn, dim, inverseSqrt(dim));
            }
            add.matrix(p + "ffn_down.weight", dim, ffn, inverseSqrt(ffn));
            if (gemma) add.vector(p + "post_ffw_norm.weight", dim, norm);
        }
        add.vector("output_norm.weight", dim, norm);
        if (!shape.tiedOutput()) add.matrix("output.weight", shape.vocabSize(), dim, 0.02f);
        for (PlannedTensor t : tensors) {
            if (t.dims()[0] % t.type().blockSize() != 0) {
                throw new IllegalArgumentException("tensor " + t.name() + ": row length " + t.dims()[0]
                        + " is not a multiple of the " + t.type() + " block size " + t.type().blockSize());
            }
            if (!Quantizer.supports(t.type())) {
                throw new UnsupportedOperationException("tensor " + t.name() + ": no quantizer for " + t.type());
            }
        }
        return tensors;
    }

    /** Writes the model to {@code file} (replacing it). */
    public static Path write(SyntheticShape shape, WeightFormat format, long seed, Path file) throws IOException {
        String a = shape.architecture();
        var w = new GGUFWriter()
                .put("general.architecture", a)
                .put("general.name", "synthetic " + shape.name())
                .put("general.file_type", format.fileType())
                .put("general.quantization_version", 2)
                .put(a + ".context_length", shape.contextLength())
                .put(a + ".embedding_length", shape.embeddingLength())
                .put(a + ".block_count", shape.blockCount())
                .put(a + ".feed_forward_length", shape.feedForwardLength())
                .put(a + ".attention.head_count", shape.headCount())
                .put(a + ".attention.head_count_kv", shape.headCountKv())
                .put(a + ".attention.layer_norm_rms_epsilon", shape.rmsNormEps())
                .put(a + ".rope.freq_base", shape.ropeFreqBase())
                .put(a + ".rope.dimension_count", shape.headDim())
                .put(a + ".attention.key_length", shape.headDim())
                .put(a + ".attention.value_length", shape.headDim())
                .put(a + ".vocab_size", shape.vocabSize());
        if (shape.slidingWindow() > 0) w.put(a + ".attention.sliding_window", shape.slidingWindow());
        if (a.equals("gemma2")) {
            w.put(a + ".attn_logit_softcapping", 50f).put(a + ".final_logit_softcapping", 30f);
        }
        if (a.equals("gemma3")) w.put(a + ".rope.freq_base_swa", 10_000f);
        if (a.equals("phi3")) {
            // Phi-3.5-mini's: sqrt(1 + ln(32) / ln(4096)) for its 32-fold extension of 4096 positions
            w.put(a + ".rope.scaling.attn_factor", (float) Math.sqrt(1 + Math.log(32) / Math.log(4096)))
                    .put(a + ".rope.scaling.original_context_length", 4096);
        }
        // llama.cpp's loader looks Phi-3's <|endoftext|> up by name; the real files have it at 32000
        SyntheticVocabulary.addTo(w, shape.vocabSize(), a.equals("phi3") && shape.vocabSize() > 32_000
                ? java.util.Map.of(32_000, "<|endoftext|>") : java.util.Map.of());
        for (PlannedTensor t : plan(shape, format)) {
            w.addTensor(t.name(), t.type(), t.dims(), out -> writeValues(t, seed, out));
        }
        w.write(file);
        return file;
    }

    private static void writeValues(PlannedTensor t, long seed, OutputStream out) throws IOException {
        if (t.values() instanceof Values.Fixed(float[] values)) {
            out.write(Quantizer.quantize(t.type(), values));
            return;
        }
        var random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + t.name().hashCode());
        int rowLength = Math.toIntExact(t.dims()[0]);
        long rows = t.elements() / rowLength;
        // Whole rows per chunk, so that every chunk is a whole number of quantization blocks.
        int rowsPerChunk = Math.max(1, CHUNK_ELEMENTS / rowLength);
        float[] chunk = new float[rowsPerChunk * rowLength];
        for (long r = 0; r < rows; r += rowsPerChunk) {
            int n = (int) Math.min(rowsPerChunk, rows - r) * rowLength;
            fill(t.values(), random, chunk, n);
            out.write(Quantizer.quantize(t.type(), chunk, 0, n));
        }
    }

    private static void fill(Values values, SplittableRandom random, float[] v, int n) {
        // Two uniform draws per 64-bit number: 32 bits each, mapped to [-1, 1).
        float scale = 1f / (1L << 31);
        float halfWidth;
        float center;
        switch (values) {
            case Values.Random(float std) -> { halfWidth = (float) (std * Math.sqrt(3)); center = 0; }
            case Values.NearOne(float spread) -> { halfWidth = spread; center = 1; }
            case Values.Fixed f -> throw new AssertionError("fixed values are written whole");
        }
        for (int i = 0; i < n; i += 2) {
            long bits = random.nextLong();
            v[i] = center + (int) bits * scale * halfWidth;
            if (i + 1 < n) v[i + 1] = center + (int) (bits >>> 32) * scale * halfWidth;
        }
    }

    private static float inverseSqrt(int n) {
        return (float) (1 / Math.sqrt(n));
    }
}
