package dev.inferd.engine.grammar;

import dev.inferd.engine.model.Batch;
import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.sample.SamplingParams;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.gguf.GGUFWriter;
import dev.inferd.engine.model.Model;
import dev.inferd.engine.model.synthetic.SyntheticByteLevelVocabulary;
import dev.inferd.engine.model.synthetic.SyntheticVocabulary;
import dev.inferd.engine.sample.Sampler;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.tokenizer.Tokenizer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * A tiny Llama with random weights and a chosen vocabulary, decoding under a grammar the way a
 * scheduler does: logits, mask, sample at temperature 1, accept. Its logits spread widely, so at
 * temperature 1 it wanders all over the vocabulary: every valid output comes from the constraint.
 */
final class RandomWeightModel implements AutoCloseable {
    private static final int DIM = 64;
    private static final int HEADS = 4;
    private static final int KV_HEADS = 2;
    private static final int FFN = 128;
    private static final int CONTEXT = 1024;

    final GGUFFile gguf;
    final Model model;
    final Tokenizer tokenizer;
    final TokenVocabulary vocabulary;

    private RandomWeightModel(Path file) throws IOException {
        gguf = GGUFFile.open(file);
        model = Model.load(gguf, 8);
        tokenizer = Tokenizer.fromGGUF(gguf);
        vocabulary = TokenVocabulary.of(tokenizer);
    }

    /** A model file of any weights (a trained one from the fixtures, say), decoding as these do. */
    static RandomWeightModel open(Path file) throws IOException {
        return new RandomWeightModel(file);
    }

    /** The synthetic SentencePiece vocabulary (byte tokens, letters, words) of {@code size}. */
    static RandomWeightModel sentencePiece(int size, Path dir) throws IOException {
        return new RandomWeightModel(write(dir.resolve("spm-" + size + ".gguf"), size, w -> {
            var tokens = SyntheticVocabulary.tokens(size);
            float[] scores = new float[size];
            int[] types = new int[size];
            for (int i = 0; i < size; i++) {
                boolean isByte = i >= 3 && i < 3 + 256;
                types[i] = i == 0 ? 2 : i <= 2 ? 3 : isByte ? 6 : 1;
                scores[i] = types[i] == 1 ? -i : 0f;
            }
            w.put("tokenizer.ggml.model", "llama").put("tokenizer.ggml.tokens", tokens).put("tokenizer.ggml.scores", scores)
                    .put("tokenizer.ggml.token_type", types).put("tokenizer.ggml.unknown_token_id", 0)
                    .put("tokenizer.ggml.bos_token_id", 1).put("tokenizer.ggml.eos_token_id", 2)
                    .put("tokenizer.ggml.add_bos_token", true);
        }));
    }

    /** The synthetic byte-level BPE vocabulary of {@code size} (Llama 3's size by default). */
    static RandomWeightModel byteLevel(int size, Path dir) throws IOException {
        return new RandomWeightModel(write(dir.resolve("bpe-" + size + ".gguf"), size,
                w -> SyntheticByteLevelVocabulary.addTo(w, size)));
    }

    private static Path write(Path file, int vocab, Consumer<GGUFWriter> tokenizer) throws IOException {
        var random = new SplittableRandom(vocab);
        int headDim = DIM / HEADS;
        var w = new GGUFWriter()
                .put("general.architecture", "llama")
                .put("general.name", "random-weights")
                .put("llama.context_length", CONTEXT)
                .put("llama.embedding_length", DIM)
                .put("llama.block_count", 1)
                .put("llama.feed_forward_length", FFN)
                .put("llama.attention.head_count", HEADS)
                .put("llama.attention.head_count_kv", KV_HEADS)
                .put("llama.attention.layer_norm_rms_epsilon", 1e-5f)
                .put("llama.rope.freq_base", 10_000f)
                .put("llama.rope.dimension_count", headDim)
                .put("llama.vocab_size", vocab);
        tokenizer.accept(w);
        matrix(w, "token_embd.weight", vocab, DIM, 1f, random);
        vector(w, "blk.0.attn_norm.weight", DIM);
        matrix(w, "blk.0.attn_q.weight", DIM, DIM, 1.5f / (float) Math.sqrt(DIM), random);
        matrix(w, "blk.0.attn_k.weight", KV_HEADS * headDim, DIM, 1.5f / (float) Math.sqrt(DIM), random);
        matrix(w, "blk.0.attn_v.weight", KV_HEADS * headDim, DIM, 1f / (float) Math.sqrt(DIM), random);
        matrix(w, "blk.0.attn_output.weight", DIM, DIM, 1f / (float) Math.sqrt(DIM), random);
        vector(w, "blk.0.ffn_norm.weight", DIM);
        matrix(w, "blk.0.ffn_gate.weight", FFN, DIM, 1f / (float) Math.sqrt(DIM), random);
        matrix(w, "blk.0.ffn_up.weight", FFN, DIM, 1f / (float) Math.sqrt(DIM), random);
        matrix(w, "blk.0.ffn_down.weight", DIM, FFN, 1f / (float) Math.sqrt(FFN), random);
        vector(w, "output_norm.weight", DIM);
        matrix(w, "output.weight", vocab, DIM, 3f / (float) Math.sqrt(DIM), random);
        w.write(file);
        return file;
    }

    private static void matrix(GGUFWriter w, String name, int rows, int cols, float std, SplittableRandom random) {
        float[] v = new float[rows * cols];
        for (int i = 0; i < v.length; i++) v[i] = (float) (random.nextGaussian() * std);
        w.addTensor(name, GGMLType.F32, new long[] {cols, rows}, Quantizer.quantize(GGMLType.F32, v));
    }

    private static void vector(GGUFWriter w, String name, int n) {
        float[] v = new float[n];
        java.util.Arrays.fill(v, 1f);
        w.addTensor(name, GGMLType.F32, new long[] {n}, Quantizer.quantize(GGMLType.F32, v));
    }

    /** What a constrained decode produced. */
    record Output(byte[] bytes, boolean ended, int tokens) {
        String text() {
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** Decodes up to {@code maxTokens} under the grammar at temperature 1, from a BOS-only prompt. */
    Output decode(Grammar grammar, long seed, int maxTokens) {
        int vocab = vocabulary.size();
        var matcher = grammar.matcher(vocabulary);
        var sampler = new Sampler(new SamplingParams(1f, 1f, seed, 0f, 0f, Map.of()), vocab, seed);
        long[] mask = new long[vocabulary.maskWords()];
        float[] logits = new float[vocab];
        KVCache cache = model.newKVCache(1, CONTEXT);
        var out = new ByteArrayOutputStream();
        var first = model.forward(Batch.ofPrompt(0, 0, new int[] {tokenizer.bos()}), cache);
        System.arraycopy(first.data(), first.offset(0), logits, 0, vocab);
        int position = 1;
        for (int n = 0; n < maxTokens; n++) {
            matcher.fillMask(mask);
            TokenMasks.apply(mask, logits, 0, vocab);
            int token = sampler.sample(logits, 0);
            if (!matcher.accept(token)) {
                throw new AssertionError("sampled token " + token + " that the mask allows but the matcher refuses");
            }
            if (matcher.isEnded()) return new Output(out.toByteArray(), true, n + 1);
            out.writeBytes(tokenizer.tokenBytes(token));
            sampler.accept(token);
            var batch = new Batch(1);
            batch.add(0, position++, token, true);
            var next = model.forward(batch, cache);
            System.arraycopy(next.data(), next.offset(0), logits, 0, vocab);
        }
        return new Output(out.toByteArray(), false, maxTokens);
    }

    /**
     * Decodes under the grammar as the scheduler does, the constraint told that at most {@code maxTokens}
     * tokens will be taken ({@link GrammarConstraint#limit}), at temperature 1 from a BOS-only prompt.
     */
    Output decodeWithin(Grammar grammar, long seed, int maxTokens) {
        int vocab = vocabulary.size();
        var constraint = GrammarConstraint.active(grammar, vocabulary);
        constraint.limit(maxTokens);
        var sampler = new Sampler(new SamplingParams(1f, 1f, seed, 0f, 0f, Map.of()), vocab, seed, constraint);
        float[] logits = new float[vocab];
        KVCache cache = model.newKVCache(1, CONTEXT);
        var out = new ByteArrayOutputStream();
        var first = model.forward(Batch.ofPrompt(0, 0, new int[] {tokenizer.bos()}), cache);
        System.arraycopy(first.data(), first.offset(0), logits, 0, vocab);
        int position = 1;
        for (int n = 0; n < maxTokens; n++) {
            int token = sampler.sample(logits, 0);
            if (tokenizer.isEndOfGeneration(token)) return new Output(out.toByteArray(), true, n + 1);
            out.writeBytes(tokenizer.tokenBytes(token));
            sampler.accept(token);
            var batch = new Batch(1);
            batch.add(0, position++, token, true);
            var next = model.forward(batch, cache);
            System.arraycopy(next.data(), next.offset(0), logits, 0, vocab);
        }
        return new Output(out.toByteArray(), false, maxTokens);
    }

    @Override
    public void close() {
        gguf.close();
    }
}
