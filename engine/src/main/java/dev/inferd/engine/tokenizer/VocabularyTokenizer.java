package dev.inferd.engine.tokenizer;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What both GGUF tokenizer kinds share: special tokens, BOS/EOS, and decoding through each token's
 * bytes. Subclasses turn a run of plain text into ids. Instances are immutable and thread-safe.
 */
abstract sealed class VocabularyTokenizer implements Tokenizer permits SentencePieceTokenizer, ByteLevelBpeTokenizer {
    private static final byte[] NO_BYTES = new byte[0];

    final Vocabulary vocab;
    private final SpecialTokenSplitter splitter;
    /** Each token's output bytes, computed once (llama.cpp keeps the same cache). */
    private final byte[][] pieces;
    /** The most UTF-8 bytes of text one token can stand for, special tokens' written form included. */
    private final int longestToken;

    VocabularyTokenizer(Vocabulary vocab) {
        this.vocab = vocab;
        this.splitter = new SpecialTokenSplitter(vocab);
        this.pieces = new byte[vocab.size()][];
        for (int id = 0; id < pieces.length; id++) {
            boolean silent = vocab.has(id, TokenAttr.CONTROL | TokenAttr.UNKNOWN);
            pieces[id] = silent ? NO_BYTES : piece(id);
        }
        int longest = 1;
        for (int id = 0; id < pieces.length; id++) {
            longest = Math.max(longest, Math.max(pieces[id].length,
                    vocab.text(id).getBytes(java.nio.charset.StandardCharsets.UTF_8).length));
        }
        this.longestToken = longest;
    }

    /** The bytes of a token that is not control or unknown. */
    abstract byte[] piece(int id);

    /**
     * Tokenizes a run of text that holds no special token.
     *
     * @param afterSpecial true at the start of the input and right after a special token
     */
    abstract void encodeText(String text, boolean afterSpecial, IntList out);

    @Override
    public int vocabSize() {
        return vocab.size();
    }

    @Override
    public int bos() {
        return vocab.bos;
    }

    @Override
    public int eos() {
        return vocab.eos;
    }

    @Override
    public boolean addsBos() {
        return vocab.addBos;
    }

    @Override
    public boolean isEndOfGeneration(int token) {
        return vocab.isEndOfGeneration(token);
    }

    @Override
    public boolean isControl(int token) {
        vocab.checkId(token);
        return vocab.has(token, TokenAttr.CONTROL);
    }

    @Override
    public boolean isSpecial(int token) {
        vocab.checkId(token);
        return vocab.has(token, TokenAttr.CONTROL | TokenAttr.USER_DEFINED | TokenAttr.UNKNOWN | TokenAttr.UNUSED);
    }

    @Override
    public int[] encode(String text, boolean addSpecial, boolean parseSpecial) {
        IntList out = new IntList();
        if (addSpecial && vocab.addBos) out.add(vocab.bos);
        boolean afterSpecial = true;
        List<Fragment> fragments = splitter.split(text, parseSpecial);
        for (Fragment fragment : fragments) {
            switch (fragment) {
                case Fragment.Text(String raw) -> {
                    encodeText(raw, afterSpecial, out);
                    afterSpecial = false;
                }
                case Fragment.SpecialToken(int id) -> {
                    out.add(id);
                    afterSpecial = true;
                }
            }
        }
        if (addSpecial && vocab.addEos) out.add(vocab.eos);
        return out.toArray();
    }

    /**
     * No token stands for more than {@link #longestToken} bytes of text, so a text longer than
     * {@code maxTokens} such tokens has too many, whatever its tokens turn out to be: it is refused on
     * its length alone. What remains to tokenize is at most that many bytes.
     */
    @Override
    public int[] encode(String text, boolean addSpecial, boolean parseSpecial, int maxTokens) {
        long bytes = utf8Length(text);
        // One more byte for a leading space the tokenizer may add; BOS and EOS only add tokens.
        long atLeast = (bytes - 1 + longestToken - 1) / longestToken;
        if (atLeast > maxTokens) throw new TooManyTokensException((int) Math.min(atLeast, Integer.MAX_VALUE), maxTokens, false);
        int[] tokens = encode(text, addSpecial, parseSpecial);
        if (tokens.length > maxTokens) throw new TooManyTokensException(tokens.length, maxTokens);
        return tokens;
    }

    private static long utf8Length(String text) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) bytes += 1;
            else if (c < 0x800) bytes += 2;
            else if (Character.isHighSurrogate(c)) {
                bytes += 4;
                i++;
            } else bytes += 3;
        }
        return bytes;
    }

    @Override
    public String tokenText(int token) {
        vocab.checkId(token);
        return vocab.text(token);
    }

    @Override
    public byte[] tokenBytes(int token) {
        vocab.checkId(token);
        return pieces[token].clone();
    }

    /**
     * Concatenates the tokens' bytes. When the sequence starts with BOS and the tokenizer adds a
     * space prefix, the first token after BOS loses one leading space: that space was added by
     * {@code encode}, not typed by the user, so {@code decode(encode(s, true, ..))} gives back s.
     * A sequence without BOS (a completion) decodes to exactly its tokens' bytes.
     */
    @Override
    public String decode(int[] tokens) {
        var out = new ByteArrayOutputStream();
        boolean stripNext = vocab.addSpacePrefix && tokens.length > 0 && tokens[0] == vocab.bos;
        for (int i = 0; i < tokens.length; i++) {
            vocab.checkId(tokens[i]);
            byte[] piece = pieces[tokens[i]];
            int from = stripNext && i == 1 && piece.length > 0 && piece[0] == ' ' ? 1 : 0;
            out.write(piece, from, piece.length - from);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
