package dev.inferd.engine.tokenizer;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFWriter;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A vocabulary as a GGUF file's {@code tokenizer.ggml.*} keys hold it, written into a one-layer llama of zeros so
 * that llama.cpp, which loads only whole models, can tokenize with it. {@code pre} and {@code merges} are for
 * byte-level BPE ({@code model} gpt2), {@code scores} for SentencePiece ({@code model} llama); the other is null.
 */
record VocabularyModel(String name, String model, String pre, String[] tokens, int[] types, float[] scores,
                       String[] merges, int bos, int eos, int unknown, boolean addSpacePrefix) {
    /** GGUF's token types ({@code tokenizer.ggml.token_type}). */
    static final int NORMAL = 1, UNKNOWN = 2, CONTROL = 3, USER_DEFINED = 4, UNUSED = 5, BYTE = 6;

    private static final int DIM = 16, FFN = 16;

    Path write(Path out) throws IOException {
        boolean bpe = model.equals("gpt2");
        var w = new GGUFWriter()
                .put("general.architecture", "llama")
                .put("general.name", "vocab-" + name)
                .put("llama.context_length", 256)
                .put("llama.embedding_length", DIM)
                .put("llama.block_count", 1)
                .put("llama.feed_forward_length", FFN)
                .put("llama.attention.head_count", 1)
                .put("llama.attention.head_count_kv", 1)
                .put("llama.attention.layer_norm_rms_epsilon", 1e-5f)
                .put("llama.rope.dimension_count", DIM)
                .put("llama.vocab_size", tokens.length)
                .put("tokenizer.ggml.model", model)
                .put("tokenizer.ggml.pre", bpe ? pre : "default")
                .put("tokenizer.ggml.tokens", tokens)
                .put("tokenizer.ggml.token_type", types)
                .put("tokenizer.ggml.bos_token_id", bos)
                .put("tokenizer.ggml.eos_token_id", eos);
        if (bpe) {
            w.put("tokenizer.ggml.merges", merges);
        } else {
            w.put("tokenizer.ggml.scores", scores)
                    .put("tokenizer.ggml.unknown_token_id", unknown)
                    .put("tokenizer.ggml.add_bos_token", true)
                    .put("tokenizer.ggml.add_eos_token", false)
                    .put("tokenizer.ggml.add_space_prefix", addSpacePrefix);
        }
        zeros(w, "token_embd.weight", DIM, tokens.length);
        zeros(w, "output_norm.weight", DIM);
        for (String tensor : List.of("attn_q", "attn_k", "attn_v", "attn_output")) {
            zeros(w, "blk.0." + tensor + ".weight", DIM, DIM);
        }
        zeros(w, "blk.0.attn_norm.weight", DIM);
        zeros(w, "blk.0.ffn_norm.weight", DIM);
        zeros(w, "blk.0.ffn_gate.weight", DIM, FFN);
        zeros(w, "blk.0.ffn_up.weight", DIM, FFN);
        zeros(w, "blk.0.ffn_down.weight", FFN, DIM);
        w.write(out);
        return out;
    }

    private static void zeros(GGUFWriter w, String name, long... dims) {
        long n = 1;
        for (long d : dims) n *= d;
        w.addTensor(name, GGMLType.F32, dims, new byte[Math.toIntExact(n * Float.BYTES)]);
    }
}
