package dev.inferd.engine.model;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFWriter;
import dev.inferd.engine.tensor.format.Quantizer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Writes GGUF models with random weights in the {@code llama} and {@code qwen2} layouts, which both
 * this engine and llama.cpp load: for reference tests (same file, same tokens) and for benchmarks
 * (real models' shapes; speed does not depend on weight values).
 *
 * <p>The vocabulary is a SentencePiece-style ({@code tokenizer.ggml.model = llama}) set of distinct
 * pieces: {@code <unk> <s> </s>}, {@code <0x0A>}, {@code ▁}, the letters {@code a..z}, and the words
 * {@code ▁a..▁z}, {@code ▁aa..▁zz}; further tokens, for bigger vocabularies, are {@code ▁w<n>}. A
 * prompt of two-letter words such as {@code "ab cd"} therefore tokenizes to one token per word.
 * Special and byte tokens get near-zero output rows so that greedy decoding only ever picks words
 * (which decode to distinct text pieces).
 *
 * <p>Weights are scaled so that logits spread widely (greedy choices win by clear margins) and the
 * attention and feed-forward paths weigh as much as the token embedding (the sequence depends on
 * its history, not just the last token).
 */
public final class SyntheticModels {
    /** First ordinary word token; ids below are special, byte, or single characters. */
    public static final int FIRST_WORD = 31;
    public static final int BOS = 1;
    public static final int EOS = 2;
    private static final String SPACE = "\u2581";

    private SyntheticModels() {
    }

    /**
     * The shape and content of a synthetic model.
     *
     * @param tiedOutput no {@code output.weight}: logits come from {@code token_embd.weight}
     * @param biases     q/k/v biases (required by llama.cpp for {@code qwen2})
     * @param logitScale the standard deviation of the logits, roughly
     */
    public record Spec(String architecture, int embeddingLength, int blockCount, int headCount, int headCountKv,
                       int feedForwardLength, int vocabSize, int contextLength, GGMLType weightType,
                       boolean tiedOutput, boolean biases, float ropeFreqBase, float logitScale, long seed) {

        public Spec {
            if (vocabSize < 733) throw new IllegalArgumentException("the synthetic vocabulary needs at least 733 tokens");
            if (embeddingLength % headCount != 0) throw new IllegalArgumentException("heads must divide the width");
        }

        public int headDim() { return embeddingLength / headCount; }

        public Spec withWeightType(GGMLType type) {
            return new Spec(architecture, embeddingLength, blockCount, headCount, headCountKv, feedForwardLength,
                    vocabSize, contextLength, type, tiedOutput, biases, ropeFreqBase, logitScale, seed);
        }

        public Spec withSeed(long newSeed) {
            return new Spec(architecture, embeddingLength, blockCount, headCount, headCountKv, feedForwardLength,
                    vocabSize, contextLength, weightType, tiedOutput, biases, ropeFreqBase, logitScale, newSeed);
        }
    }

    /** A small Llama: width 64, 3 layers, 8 query heads over 2 KV heads, separate output head. */
    public static Spec smallLlama(GGMLType weightType) {
        return new Spec("llama", 64, 3, 8, 2, 160, 800, 256, weightType, false, false, 10_000f, 25f, 1);
    }

    /** A small Qwen2: width 128, 2 layers, 4 query heads over 2 KV heads, biases, tied output head. */
    public static Spec smallQwen2(GGMLType weightType) {
        return new Spec("qwen2", 128, 2, 4, 2, 256, 733, 256, weightType, true, true, 1_000_000f, 25f, 1);
    }

    /** The vocabulary entries, in id order. */
    public static List<String> tokens(int vocabSize) {
        var t = new ArrayList<String>(vocabSize);
        t.add("<unk>");
        t.add("<s>");
        t.add("</s>");
        t.add("<0x0A>");
        t.add(SPACE);
        for (char c = 'a'; c <= 'z'; c++) t.add(String.valueOf(c));
        for (char c = 'a'; c <= 'z'; c++) t.add(SPACE + c);
        for (char a = 'a'; a <= 'z'; a++) for (char b = 'a'; b <= 'z'; b++) t.add(SPACE + a + b);
        for (int i = 0; t.size() < vocabSize; i++) t.add(SPACE + "w" + i);
        return t;
    }

    /** The text a token adds when decoded ({@code ▁} as a space), as llama.cpp renders its piece. */
    public static String piece(int token, int vocabSize) {
        return tokens(vocabSize).get(token).replace(SPACE, " ");
    }

    /** The id of a word such as {@code "ab"} (its token is {@code ▁ab}). */
    public static int wordToken(String word, int vocabSize) {
        int id = tokens(vocabSize).indexOf(SPACE + word);
        if (id < 0) throw new IllegalArgumentException("no token for word " + word);
        return id;
    }

    /** Chooses a tensor's type by its name, given the spec's weight type (e.g. llama.cpp's Q4_K_M mix). */
    @FunctionalInterface
    public interface TensorTypes {
        GGMLType typeOf(String tensorName, GGMLType weightType);
    }

    public static Path write(Spec spec, Path file) throws IOException {
        return write(spec, file, (name, type) -> type);
    }

    /** As {@link #write(Spec, Path)}, each weight matrix in the type {@code tensorTypes} chooses (norms stay F32). */
    public static Path write(Spec spec, Path file, TensorTypes tensorTypes) throws IOException {
        String a = spec.architecture();
        List<String> tokens = tokens(spec.vocabSize());
        float[] scores = new float[tokens.size()];
        int[] types = new int[tokens.size()];
        for (int i = 0; i < tokens.size(); i++) {
            scores[i] = -i;
            types[i] = switch (i) {
                case 0 -> 2;    // unknown
                case 1, 2 -> 3; // control
                case 3 -> 6;    // byte
                default -> 1;   // normal
            };
        }
        int dim = spec.embeddingLength();
        int qLen = spec.headCount() * spec.headDim();
        int kvLen = spec.headCountKv() * spec.headDim();
        int ffn = spec.feedForwardLength();
        var w = new GGUFWriter()
                .put("general.architecture", a)
                .put("general.name", "synthetic-" + a)
                .put(a + ".context_length", spec.contextLength())
                .put(a + ".embedding_length", dim)
                .put(a + ".block_count", spec.blockCount())
                .put(a + ".feed_forward_length", ffn)
                .put(a + ".attention.head_count", spec.headCount())
                .put(a + ".attention.head_count_kv", spec.headCountKv())
                .put(a + ".attention.layer_norm_rms_epsilon", 1e-5f)
                .put(a + ".rope.freq_base", spec.ropeFreqBase())
                .put(a + ".rope.dimension_count", spec.headDim())
                .put(a + ".vocab_size", spec.vocabSize())
                .put("tokenizer.ggml.model", "llama")
                .put("tokenizer.ggml.tokens", tokens)
                .put("tokenizer.ggml.scores", scores)
                .put("tokenizer.ggml.token_type", types)
                .put("tokenizer.ggml.unknown_token_id", 0)
                .put("tokenizer.ggml.bos_token_id", BOS)
                .put("tokenizer.ggml.eos_token_id", EOS)
                .put("tokenizer.ggml.add_bos_token", true)
                .put("tokenizer.ggml.add_eos_token", false);

        var random = new SplittableRandom(spec.seed());
        // Residual contributions are scaled like the embedding, so layers matter as much as the token.
        float embedStd = spec.tiedOutput() ? spec.logitScale() / (float) Math.sqrt(dim) : 1f;
        // Tied models see their own token's embedding in the output head, which invites repeating it;
        // stronger layers drown that out.
        float residual = embedStd * (spec.tiedOutput() ? 4f : 1.5f);
        GGMLType big = spec.weightType();
        float[] embedding = gaussian(random, spec.vocabSize() * dim, embedStd);
        if (spec.tiedOutput()) silenceNonWords(embedding, dim);
        GGMLType embeddingType = tensorTypes.typeOf("token_embd.weight", big);
        w.addTensor("token_embd.weight", embeddingType, new long[] {dim, spec.vocabSize()},
                Quantizer.quantize(embeddingType, embedding));
        for (int l = 0; l < spec.blockCount(); l++) {
            String p = "blk." + l + ".";
            vector(w, p + "attn_norm.weight", around(random, dim, 1f, 0.2f));
            matrix(w, p + "attn_q.weight", tensorTypes, big, qLen, dim, gaussian(random, qLen * dim, 1.5f / (float) Math.sqrt(dim)));
            matrix(w, p + "attn_k.weight", tensorTypes, big, kvLen, dim, gaussian(random, kvLen * dim, 1.5f / (float) Math.sqrt(dim)));
            matrix(w, p + "attn_v.weight", tensorTypes, big, kvLen, dim, gaussian(random, kvLen * dim, 1f / (float) Math.sqrt(dim)));
            if (spec.biases()) {
                vector(w, p + "attn_q.bias", gaussian(random, qLen, 0.5f));
                vector(w, p + "attn_k.bias", gaussian(random, kvLen, 0.5f));
                vector(w, p + "attn_v.bias", gaussian(random, kvLen, 0.5f));
            }
            matrix(w, p + "attn_output.weight", tensorTypes, big, dim, qLen, gaussian(random, dim * qLen, residual / (float) Math.sqrt(qLen)));
            vector(w, p + "ffn_norm.weight", around(random, dim, 1f, 0.2f));
            matrix(w, p + "ffn_gate.weight", tensorTypes, big, ffn, dim, gaussian(random, ffn * dim, 1f / (float) Math.sqrt(dim)));
            matrix(w, p + "ffn_up.weight", tensorTypes, big, ffn, dim, gaussian(random, ffn * dim, 1f / (float) Math.sqrt(dim)));
            matrix(w, p + "ffn_down.weight", tensorTypes, big, dim, ffn, gaussian(random, dim * ffn, 2 * residual / (float) Math.sqrt(ffn)));
        }
        vector(w, "output_norm.weight", around(random, dim, 1f, 0.2f));
        if (!spec.tiedOutput()) {
            float[] output = gaussian(random, spec.vocabSize() * dim, spec.logitScale() / (float) Math.sqrt(dim));
            silenceNonWords(output, dim);
            matrix(w, "output.weight", tensorTypes, big, spec.vocabSize(), dim, output);
        }
        w.write(file);
        return file;
    }

    /** Special, byte and single-character tokens get tiny rows: their logits stay near 0, below the best word's. */
    private static void silenceNonWords(float[] rows, int dim) {
        for (int i = 0; i < FIRST_WORD * dim; i++) rows[i] *= 0.01f;
    }

    private static void matrix(GGUFWriter w, String name, TensorTypes types, GGMLType weightType, int rows, int cols,
                               float[] values) {
        GGMLType type = types.typeOf(name, weightType);
        w.addTensor(name, type, new long[] {cols, rows}, Quantizer.quantize(type, values));
    }

    private static void vector(GGUFWriter w, String name, float[] values) {
        w.addTensor(name, GGMLType.F32, new long[] {values.length}, Quantizer.quantize(GGMLType.F32, values));
    }

    private static float[] gaussian(SplittableRandom random, int n, float std) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) (random.nextGaussian() * std);
        return v;
    }

    private static float[] around(SplittableRandom random, int n, float mean, float spread) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = mean + (float) ((random.nextDouble() * 2 - 1) * spread);
        return v;
    }
}
