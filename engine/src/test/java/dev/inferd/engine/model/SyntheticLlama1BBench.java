package dev.inferd.engine.model;

import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.gguf.GGUFWriter;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.tensor.parallel.WorkerPool;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Not a test: writes a GGUF with the shapes of Llama 3.2 1B (random weights, 64 distinct rows per
 * tensor repeated: speed does not depend on the values) and times prefill and decode through
 * {@link Model#forward}, to compare with {@code llama-bench -p 512 -n 128} on the same file. A stopgap
 * for kernel work until the app's {@code bench} command exists. With the test classpath:
 * {@code ... SyntheticLlama1BBench write Q8_0 /tmp/llama-1b-q8_0.gguf}, then
 * {@code ... SyntheticLlama1BBench bench /tmp/llama-1b-q8_0.gguf 2 512 128} (threads, prompt, tokens).
 */
public final class SyntheticLlama1BBench {
    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "write" -> write(GGMLType.valueOf(args[1]), Path.of(args[2]));
            case "bench" -> bench(Path.of(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    /** Llama 3.2 1B: dim 2048, 16 layers, 32 heads, 8 KV heads, ffn 8192, vocab 128256, tied embeddings. */
    static void write(GGMLType type, Path file) throws Exception {
        int dim = 2048, layers = 16, heads = 32, kvHeads = 8, ffn = 8192, vocab = 128256, headDim = 64;
        String a = "llama";
        List<String> tokens = SyntheticModels.tokens(vocab);
        float[] scores = new float[vocab];
        int[] types = new int[vocab];
        for (int i = 0; i < vocab; i++) {
            scores[i] = -i;
            types[i] = i == 0 ? 2 : i < 3 ? 3 : i == 3 ? 6 : 1;
        }
        var w = new GGUFWriter()
                .put("general.architecture", a).put("general.name", "synthetic-llama-3.2-1b")
                .put(a + ".context_length", 4096).put(a + ".embedding_length", dim).put(a + ".block_count", layers)
                .put(a + ".feed_forward_length", ffn).put(a + ".attention.head_count", heads)
                .put(a + ".attention.head_count_kv", kvHeads).put(a + ".attention.layer_norm_rms_epsilon", 1e-5f)
                .put(a + ".rope.freq_base", 500000f).put(a + ".rope.dimension_count", headDim).put(a + ".vocab_size", vocab)
                .put("tokenizer.ggml.model", "llama").put("tokenizer.ggml.tokens", tokens)
                .put("tokenizer.ggml.scores", scores).put("tokenizer.ggml.token_type", types)
                .put("tokenizer.ggml.unknown_token_id", 0).put("tokenizer.ggml.bos_token_id", 1)
                .put("tokenizer.ggml.eos_token_id", 2).put("tokenizer.ggml.add_bos_token", true)
                .put("tokenizer.ggml.add_eos_token", false);
        var random = new SplittableRandom(7);
        matrix(w, "token_embd.weight", type, vocab, dim, 1f / (float) Math.sqrt(dim) * 8, random);
        for (int l = 0; l < layers; l++) {
            String p = "blk." + l + ".";
            vector(w, p + "attn_norm.weight", dim);
            matrix(w, p + "attn_q.weight", type, heads * headDim, dim, 1.5f / (float) Math.sqrt(dim), random);
            matrix(w, p + "attn_k.weight", type, kvHeads * headDim, dim, 1.5f / (float) Math.sqrt(dim), random);
            matrix(w, p + "attn_v.weight", type, kvHeads * headDim, dim, 1f / (float) Math.sqrt(dim), random);
            matrix(w, p + "attn_output.weight", type, dim, heads * headDim, 1f / (float) Math.sqrt(dim), random);
            vector(w, p + "ffn_norm.weight", dim);
            matrix(w, p + "ffn_gate.weight", type, ffn, dim, 1f / (float) Math.sqrt(dim), random);
            matrix(w, p + "ffn_up.weight", type, ffn, dim, 1f / (float) Math.sqrt(dim), random);
            matrix(w, p + "ffn_down.weight", type, dim, ffn, 1f / (float) Math.sqrt(ffn), random);
        }
        vector(w, "output_norm.weight", dim);
        w.write(file);
    }

    /** 64 distinct random rows, repeated: speed does not depend on the values. */
    private static void matrix(GGUFWriter w, String name, GGMLType type, int rows, int cols, float std, SplittableRandom random) {
        byte[][] distinct = new byte[64][];
        for (int i = 0; i < distinct.length; i++) {
            float[] v = new float[cols];
            for (int c = 0; c < cols; c++) v[c] = (float) (random.nextGaussian() * std);
            distinct[i] = Quantizer.quantize(type, v);
        }
        int shift = random.nextInt(64);
        w.addTensor(name, type, new long[] {cols, rows}, out -> {
            for (int r = 0; r < rows; r++) out.write(distinct[(r * 7 + shift) % 64]);
        });
    }

    private static void vector(GGUFWriter w, String name, int n) {
        float[] v = new float[n];
        Arrays.fill(v, 1f);
        w.addTensor(name, GGMLType.F32, new long[] {n}, Quantizer.quantize(GGMLType.F32, v));
    }

    static void bench(Path file, int threads, int prompt, int generate) throws Exception {
        WorkerPool.configure(threads);
        try (GGUFFile gguf = GGUFFile.open(file)) {
            Model model = Model.load(gguf, prompt);
            for (int rep = 0; rep < 3; rep++) {
                KVCache cache = model.newKVCache(1, prompt + generate + 1);
                int[] tokens = new int[prompt];
                for (int i = 0; i < prompt; i++) tokens[i] = 100 + (i * 37) % 1000;
                long t0 = System.nanoTime();
                model.forward(Batch.ofPrompt(0, 0, tokens), cache);
                double pp = (System.nanoTime() - t0) / 1e9;
                var b = new Batch(1);
                int token = 500;
                long t1 = System.nanoTime();
                for (int i = 0; i < generate; i++) {
                    b.clear();
                    b.add(0, prompt + i, token, true);
                    token = model.forward(b, cache).argmax(0);
                }
                double tg = (System.nanoTime() - t1) / 1e9;
                System.out.printf("pp%d %.2f t/s   tg%d %.2f t/s%n", prompt, prompt / pp, generate, generate / tg);
            }
        }
    }
}
