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

    /**
     * Whether {@link #fromGGUF} builds a tokenizer for {@code tokenizer.ggml.model} {@code model} with
     * {@code tokenizer.ggml.pre} {@code pre} (null: none): SentencePiece ({@code llama}) files, and byte-level BPE
     * ({@code gpt2}) files with a pre-tokenizer this engine knows.
     */
    static boolean supports(String model, String pre) {
        return switch (model) {
            case "llama" -> true;
            case "gpt2" -> PreTokenizer.supports(pre);
            default -> false;
        };
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

    /**
     * Tokenizes text of at most {@code maxTokens} tokens, with work bounded by that limit rather than by
     * the text: a text that cannot fit is refused before it is tokenized whole.
     *
     * @throws TooManyTokensException when the text has more than {@code maxTokens} tokens
     */
    default int[] encode(String text, boolean addSpecial, boolean parseSpecial, int maxTokens) {
        int[] tokens = encode(text, addSpecial, parseSpecial);
        if (tokens.length > maxTokens) throw new TooManyTokensException(tokens.length, maxTokens);
        return tokens;
    }

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
