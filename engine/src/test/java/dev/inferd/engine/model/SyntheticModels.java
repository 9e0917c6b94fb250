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

    /** A small Qwen3: per-head q/k norms, no biases, separate output head. */
    public static Spec smallQwen3(GGMLType weightType) {
        int width = weightType.blockSize() == 256 ? 256 : 128;
        return new Spec("qwen3", width, 2, 4, 2, 2 * width, 800, 256, weightType, false, false, 1_000_000f, 25f, 1);
    }

    /**
     * A small Gemma 2: tied output, post-norms, GeGLU, soft-capping, a sliding window of {@link #WINDOW} on even layers.
     * 26 layers, Gemma 2 2B's count: llama.cpp b4916 picks the query scale by the layer count and aborts on others.
     */
    public static Spec smallGemma2(GGMLType weightType) {
        int width = weightType.blockSize() == 256 ? 256 : 128;
        // logits spread wider than the other shapes': margins clear of 26 layers' rounding are rarer
        return new Spec("gemma2", width, 26, 4, 2, 2 * width, 800, 256, weightType, true, false, 10_000f, 60f, 1);
    }

    /** A small Gemma 3: six layers, so that the sixth is global and the others slide, with their own RoPE base. */
    public static Spec smallGemma3(GGMLType weightType) {
        int width = weightType.blockSize() == 256 ? 256 : 128;
        return new Spec("gemma3", width, 6, 4, 1, 2 * width, 800, 256, weightType, true, false, 1_000_000f, 25f, 1);
    }

    /** A small Phi-3: fused QKV and gate/up, LongRoPE factors, partial rotary dimensions (3/4 of a head). */
    public static Spec smallPhi3(GGMLType weightType) {
        int width = weightType.blockSize() == 256 ? 256 : 128;
        return new Spec("phi3", width, 2, 4, 4, 2 * width, 800, 256, weightType, false, false, 10_000f, 25f, 1);
    }

    /** The sliding window of the synthetic Gemma models: shorter than a reference test's context, so it matters. */
    public static final int WINDOW = 12;
    /** Phi-3's original context in the synthetic files: below the tests' 128, so the long factors apply. */
    public static final int PHI3_ORIGINAL_CONTEXT = 64;
    /** Phi-3's end-of-turn and end-of-text tokens, the last two of its synthetic vocabulary. */
    static final String PHI3_END = "<|end|>";
    static final String PHI3_END_OF_TEXT = "<|endoftext|>";
    /** How many eighths of a Phi-3 head RoPE rotates: Phi-4-mini's three quarters. */
    static final int PHI3_ROTARY_EIGHTHS = 6;

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
        List<String> tokens = new ArrayList<>(tokens(spec.vocabSize()));
        if (a.equals("phi3")) { // llama.cpp looks these up by their text in a file whose name says phi3
            tokens.set(tokens.size() - 2, PHI3_END_OF_TEXT);
            tokens.set(tokens.size() - 1, PHI3_END);
        }
        float[] scores = new float[tokens.size()];
        int[] types = new int[tokens.size()];
        for (int i = 0; i < tokens.size(); i++) {
            scores[i] = -i;
            types[i] = switch (i) {
                case 0 -> 2;    // unknown
                case 1, 2 -> 3; // control
                case 3 -> 6;    // byte
                default -> tokens.get(i).startsWith("<|") ? 3 : 1; // Phi-3's control tokens, else normal
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
                .put(a + ".rope.dimension_count", a.equals("phi3") ? spec.headDim() * PHI3_ROTARY_EIGHTHS / 8 : spec.headDim())
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

        boolean gemma = a.startsWith("gemma");
        if (gemma) {
            w.put(a + ".attention.sliding_window", WINDOW);
            w.put(a + ".attention.key_length", spec.headDim());
            w.put(a + ".attention.value_length", spec.headDim());
        }
        if (a.equals("gemma2")) {
            // The attention cap bends the scores. The final cap is monotonic, so it never changes a greedy choice,
            // but it narrows the margins between choices: far above the logits, it leaves margins the seed search
            // can find (at 120 no seed of 256 gave the Q4_K_M mix clear margins).
            w.put(a + ".attn_logit_softcapping", 10f);
            w.put(a + ".final_logit_softcapping", 1000f);
        }
        if (a.equals("qwen3")) {
            w.put(a + ".attention.key_length", spec.headDim());
            w.put(a + ".attention.value_length", spec.headDim());
        }
        if (a.equals("phi3")) {
            w.put(a + ".rope.scaling.attn_factor", 1.19f);
            w.put(a + ".rope.scaling.original_context_length", PHI3_ORIGINAL_CONTEXT);
            // Phi-3.5-mini's files say 262144, beyond any context: llama.cpp b4916 refuses a phi3 file without it
            w.put(a + ".attention.sliding_window", 262_144);
        }
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
        if (a.equals("phi3")) {
            int pairs = spec.headDim() * PHI3_ROTARY_EIGHTHS / 16;
            vector(w, "rope_factors_short.weight", around(random, pairs, 1.5f, 0.5f));
            vector(w, "rope_factors_long.weight", around(random, pairs, 5f, 4f));
        }
        // Gemma's post-norms scale the layers' outputs: weights near the embedding's size (times sqrt(width), as
        // Gemma scales it) keep the layers as strong as the token
        float post = residual * (float) Math.sqrt(dim);
        for (int l = 0; l < spec.blockCount(); l++) {
            String p = "blk." + l + ".";
            vector(w, p + "attn_norm.weight", around(random, dim, 1f, 0.2f));
            float[] q = gaussian(random, qLen * dim, 1.5f / (float) Math.sqrt(dim));
            float[] k = gaussian(random, kvLen * dim, 1.5f / (float) Math.sqrt(dim));
            float[] v = gaussian(random, kvLen * dim, 1f / (float) Math.sqrt(dim));
            if (a.equals("phi3")) {
                float[] qkv = new float[q.length + k.length + v.length];
                System.arraycopy(q, 0, qkv, 0, q.length);
                System.arraycopy(k, 0, qkv, q.length, k.length);
                System.arraycopy(v, 0, qkv, q.length + k.length, v.length);
                matrix(w, p + "attn_qkv.weight", tensorTypes, big, qLen + 2 * kvLen, dim, qkv);
            } else {
                matrix(w, p + "attn_q.weight", tensorTypes, big, qLen, dim, q);
                matrix(w, p + "attn_k.weight", tensorTypes, big, kvLen, dim, k);
                matrix(w, p + "attn_v.weight", tensorTypes, big, kvLen, dim, v);
            }
            if (a.equals("qwen3") || a.equals("gemma3")) {
                vector(w, p + "attn_q_norm.weight", around(random, spec.headDim(), 1f, 0.2f));
                vector(w, p + "attn_k_norm.weight", around(random, spec.headDim(), 1f, 0.2f));
            }
            if (spec.biases()) {
                vector(w, p + "attn_q.bias", gaussian(random, qLen, 0.5f));
                vector(w, p + "attn_k.bias", gaussian(random, kvLen, 0.5f));
                vector(w, p + "attn_v.bias", gaussian(random, kvLen, 0.5f));
            }
            matrix(w, p + "attn_output.weight", tensorTypes, big, dim, qLen, gaussian(random, dim * qLen, residual / (float) Math.sqrt(qLen)));
            if (gemma) vector(w, p + "post_attention_norm.weight", around(random, dim, post, 0.2f * post));
            vector(w, p + "ffn_norm.weight", around(random, dim, 1f, 0.2f));
            float[] gate = gaussian(random, ffn * dim, 1f / (float) Math.sqrt(dim));
            float[] up = gaussian(random, ffn * dim, 1f / (float) Math.sqrt(dim));
            if (a.equals("phi3")) {
                float[] gateUp = new float[2 * ffn * dim];
                System.arraycopy(gate, 0, gateUp, 0, gate.length);
                System.arraycopy(up, 0, gateUp, gate.length, up.length);
                matrix(w, p + "ffn_up.weight", tensorTypes, big, 2 * ffn, dim, gateUp);
            } else {
                matrix(w, p + "ffn_gate.weight", tensorTypes, big, ffn, dim, gate);
                matrix(w, p + "ffn_up.weight", tensorTypes, big, ffn, dim, up);
            }
            matrix(w, p + "ffn_down.weight", tensorTypes, big, dim, ffn, gaussian(random, dim * ffn, 2 * residual / (float) Math.sqrt(ffn)));
            if (gemma) vector(w, p + "post_ffw_norm.weight", around(random, dim, post, 0.2f * post));
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
