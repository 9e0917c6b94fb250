package dev.inferd.engine.model.synthetic;

import dev.inferd.engine.gguf.GGUFWriter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A SentencePiece-style ({@code tokenizer.ggml.model = llama}) vocabulary of any size with simple,
 * distinct pieces, which both this engine and llama.cpp load: {@code <unk> <s> </s>}, the 256 byte
 * tokens {@code <0x00>..<0xFF>}, {@code ▁}, the letters {@code a..z}, the words {@code ▁a..▁z} and
 * {@code ▁aa..▁zz}, then {@code ▁w<n>} up to the size.
 */
public final class SyntheticVocabulary {
    public static final int UNK = 0;
    public static final int BOS = 1;
    public static final int EOS = 2;
    /** The smallest vocabulary: everything but the {@code ▁w<n>} fillers. */
    public static final int MIN_SIZE = 3 + 256 + 1 + 26 + 26 + 26 * 26;

    private static final String SPACE = "\u2581";
    // SentencePiece token types, as llama.cpp numbers them
    private static final int NORMAL = 1;
    private static final int UNKNOWN = 2;
    private static final int CONTROL = 3;
    private static final int BYTE = 6;

    private SyntheticVocabulary() {
    }

    /** The pieces, in id order. */
    public static List<String> tokens(int size) {
        if (size < MIN_SIZE) throw new IllegalArgumentException("a synthetic vocabulary has at least " + MIN_SIZE + " tokens");
        var t = new ArrayList<String>(size);
        t.add("<unk>");
        t.add("<s>");
        t.add("</s>");
        for (int b = 0; b < 256; b++) t.add("<0x%02X>".formatted(b));
        t.add(SPACE);
        for (char c = 'a'; c <= 'z'; c++) t.add(String.valueOf(c));
        for (char c = 'a'; c <= 'z'; c++) t.add(SPACE + c);
        for (char a = 'a'; a <= 'z'; a++) for (char b = 'a'; b <= 'z'; b++) t.add(SPACE + a + b);
        for (int i = 0; t.size() < size; i++) t.add(SPACE + "w" + i);
        return t;
    }

    /**
     * Adds the {@code tokenizer.ggml.*} keys for a vocabulary of {@code size}, with the given control
     * tokens in place of fillers at their ids (a family's own specials, which loaders look up by name).
     */
    static void addTo(GGUFWriter w, int size, Map<Integer, String> controls) {
        List<String> tokens = tokens(size);
        controls.forEach((id, text) -> {
            if (id < MIN_SIZE || id >= size) throw new IllegalArgumentException("control token " + text + " at " + id);
            tokens.set(id, text);
        });
        float[] scores = new float[size];
        int[] types = new int[size];
        for (int i = 0; i < size; i++) {
            boolean isByte = i >= 3 && i < 3 + 256;
            types[i] = switch (i) {
                case UNK -> UNKNOWN;
                case BOS, EOS -> CONTROL;
                default -> isByte ? BYTE : controls.containsKey(i) ? CONTROL : NORMAL;
            };
            scores[i] = types[i] == NORMAL ? -i : 0f;
        }
        w.put("tokenizer.ggml.model", "llama")
                .put("tokenizer.ggml.tokens", tokens)
                .put("tokenizer.ggml.scores", scores)
                .put("tokenizer.ggml.token_type", types)
                .put("tokenizer.ggml.unknown_token_id", UNK)
                .put("tokenizer.ggml.bos_token_id", BOS)
                .put("tokenizer.ggml.eos_token_id", EOS)
                .put("tokenizer.ggml.add_bos_token", true)
                .put("tokenizer.ggml.add_eos_token", false);
    }
}
