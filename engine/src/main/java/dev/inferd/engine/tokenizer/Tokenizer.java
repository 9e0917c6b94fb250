package dev.inferd.engine.tokenizer;

import dev.inferd.engine.gguf.GGUFFile;

/**
 * Text to token ids and back, as defined by a GGUF file's {@code tokenizer.ggml.*} metadata.
 */
public interface Tokenizer {

    /** Builds the tokenizer the file's {@code tokenizer.ggml.model} names ({@code llama} or {@code gpt2}). */
    static Tokenizer fromGGUF(GGUFFile gguf) {
        return TokenizerLoader.load(gguf);
    }

    int vocabSize();

    /** Beginning-of-sequence id, or -1. */
    int bos();

    /** End-of-sequence id, or -1. */
    int eos();

    /** Whether {@code encode(.., addSpecial=true, ..)} puts BOS first ({@code tokenizer.ggml.add_bos_token}). */
    boolean addsBos();

    /** True for tokens that end a generation: EOS, EOT, {@code <|im_end|>}, {@code <|eot_id|>} and the like. */
    boolean isEndOfGeneration(int token);

    /** True for control tokens, which are not part of the text a user sees. */
    boolean isControl(int token);

    /**
     * True for control, user-defined and unknown tokens: tokens that stand for something other than
     * their text (a tool-call marker, say), so constrained decoding never uses them to spell output.
     */
    default boolean isSpecial(int token) {
        return isControl(token);
    }

    /**
     * Tokenizes text.
     *
     * @param addSpecial add BOS (and EOS, if the model's metadata asks) around the text
     * @param parseSpecial recognise the text of special tokens (e.g. {@code <|im_start|>}) as those tokens
     */
    int[] encode(String text, boolean addSpecial, boolean parseSpecial);

    /** The vocabulary entry as stored in the file. */
    String tokenText(int token);

    /**
     * The UTF-8 bytes this token adds to decoded text. Control tokens give no bytes. May be a partial
     * UTF-8 sequence (byte-fallback tokens).
     */
    byte[] tokenBytes(int token);

    /** Decodes a whole sequence (what a user would see). */
    String decode(int[] tokens);
}
