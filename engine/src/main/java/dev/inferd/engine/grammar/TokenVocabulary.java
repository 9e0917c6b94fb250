package dev.inferd.engine.grammar;

import dev.inferd.engine.tokenizer.Tokenizer;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.stream.IntStream;

/**
 * The token bytes of one vocabulary as a trie, for computing token masks: a walk of the trie in
 * depth-first order steps the grammar's automaton once per trie node and skips a whole subtree as
 * soon as its prefix cannot continue the output. Built once per tokenizer ({@link #of(Tokenizer)}
 * caches it). Also holds the computed masks, per automaton state, within a memory budget.
 *
 * <p>Special tokens (control, user-defined) stand for something other than their text, so they never
 * spell grammar text: each is entered as {@link #specialTokenBytes its text framed by 0xFF bytes}, which
 * only a grammar that names the token (a tool-call marker) matches. 0xFF never occurs in UTF-8, so
 * ordinary tokens holding it (raw-byte tokens) are left out: no text grammar can use them, and they
 * cannot spell a frame. Tokens with no bytes (unknown, unused) never match; end-of-generation tokens
 * are allowed exactly when the grammar is complete.
 */
public final class TokenVocabulary {
    /** Masks kept per vocabulary, in bytes. */
    private static final long MASK_CACHE_BYTES = 64L << 20;
    private static final Map<Tokenizer, TokenVocabulary> BY_TOKENIZER = Collections.synchronizedMap(new WeakHashMap<>());

    private final byte[][] tokenBytes;
    private final int size;
    private final int words;
    private final long[] endOfGeneration;
    /** Every token with bytes. */
    private final TokenTrie trie;
    /** Tokens all of whose bytes are {@link #isPlain plain}, as bits, and a trie of the other tokens. */
    private final long[] plain;
    private final TokenTrie notPlain;
    private final MaskCache masks = new MaskCache();
    /** Every byte but 0xFF is a token of its own, so no text needs more tokens than it has bytes. */
    private final boolean spellsEveryByte;

    private TokenVocabulary(byte[][] tokenBytes, int[] endOfGenerationTokens) {
        this.tokenBytes = tokenBytes;
        size = tokenBytes.length;
        words = (size + 63) >>> 6;
        endOfGeneration = new long[words];
        for (int t : endOfGenerationTokens) endOfGeneration[t >>> 6] |= 1L << t;

        int[] ids = IntStream.range(0, size).filter(t -> tokenBytes[t] != null && tokenBytes[t].length > 0).toArray();
        trie = new TokenTrie(tokenBytes, ids);
        plain = new long[words];
        for (int t : ids) {
            if (isPlain(tokenBytes[t])) plain[t >>> 6] |= 1L << t;
        }
        notPlain = new TokenTrie(tokenBytes, Arrays.stream(ids).filter(t -> (plain[t >>> 6] & 1L << t) == 0).toArray());
        boolean[] single = new boolean[256];
        for (int t : ids) {
            if (tokenBytes[t].length == 1) single[tokenBytes[t][0] & 0xFF] = true;
        }
        boolean every = true;
        for (int b = 0; b < 255; b++) every &= single[b];
        spellsEveryByte = every;
    }

    /** Whether every byte but 0xFF is a token of its own (then a text never takes more tokens than bytes). */
    boolean spellsEveryByte() {
        return spellsEveryByte;
    }

    /** The fewest tokens that spell exactly {@code text}, or {@link Nfa#UNREACHABLE} when none do. */
    int fewestTokens(byte[] text) {
        int n = text.length;
        int[] best = new int[n + 1];
        for (int i = n - 1; i >= 0; i--) {
            int from = i;
            int[] least = {Nfa.UNREACHABLE};
            trie.prefixTokens(text, from, length -> least[0] = Math.min(least[0], best[from + length] + 1));
            best[i] = least[0];
        }
        return best[0];
    }

    private final Map<String, int[]> specialTokenIds = new java.util.concurrent.ConcurrentHashMap<>();

    /** The special tokens with this text (a call marker, {@code </think>}); empty when it is no special token here. */
    public int[] specialTokens(String text) {
        return specialTokenIds.computeIfAbsent(text, t -> {
            byte[] framed = specialTokenBytes(t);
            return IntStream.range(0, size).filter(id -> Arrays.equals(tokenBytes[id], framed)).toArray();
        });
    }

    private final Map<String, int[]> spellings = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The fewest ordinary tokens that spell exactly {@code text}, in order (for forcing a text the model must
     * write); empty when no tokens spell it. Computed once per text.
     */
    public int[] spelling(String text) {
        return spellings.computeIfAbsent(text, t -> {
            byte[] target = t.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            int n = target.length;
            int[] fewest = new int[n + 1];
            int[] via = new int[n + 1];
            Arrays.fill(fewest, Integer.MAX_VALUE);
            fewest[n] = 0;
            for (int i = n - 1; i >= 0; i--) {
                for (int id = 0; id < size; id++) {
                    byte[] b = tokenBytes[id];
                    if (b == null || b[0] == FRAME || b.length > n - i || fewest[i + b.length] == Integer.MAX_VALUE
                            || !Arrays.equals(b, 0, b.length, target, i, i + b.length)) continue;
                    if (fewest[i + b.length] + 1 < fewest[i]) {
                        fewest[i] = fewest[i + b.length] + 1;
                        via[i] = id;
                    }
                }
            }
            if (n == 0 || fewest[0] == Integer.MAX_VALUE) return new int[0];
            int[] tokens = new int[fewest[0]];
            for (int i = 0, k = 0; i < n; i += tokenBytes[tokens[k - 1]].length) tokens[k++] = via[i];
            return tokens;
        }).clone();
    }

    /** Whether all of {@code token}'s bytes are plain (see {@link #isPlain(int)}). */
    boolean isPlainToken(int token) {
        return (plain[token >>> 6] & 1L << token) != 0;
    }

    /**
     * Printable ASCII other than {@code "} and {@code \}: what a JSON string holds as it is. Inside a
     * free string the automaton takes any of these bytes back to the state it was in.
     */
    private static boolean isPlain(int b) {
        return b >= 0x20 && b <= 0x7E && b != '"' && b != '\\';
    }

    private static boolean isPlain(byte[] bytes) {
        for (byte b : bytes) {
            if (!isPlain(b & 0xFF)) return false;
        }
        return true;
    }

    /** The vocabulary of a tokenizer, built once per tokenizer. */
    public static TokenVocabulary of(Tokenizer tokenizer) {
        return BY_TOKENIZER.computeIfAbsent(tokenizer, TokenVocabulary::build);
    }

    private static TokenVocabulary build(Tokenizer tokenizer) {
        int n = tokenizer.vocabSize();
        byte[][] bytes = new byte[n][];
        int[] endOfGeneration = IntStream.range(0, n).filter(tokenizer::isEndOfGeneration).toArray();
        for (int t = 0; t < n; t++) {
            if (tokenizer.isEndOfGeneration(t)) continue;
            if (tokenizer.isSpecial(t)) {
                String text = tokenizer.tokenText(t);
                bytes[t] = text == null || text.isEmpty() ? null : specialTokenBytes(text);
            } else {
                bytes[t] = ordinary(tokenizer.tokenBytes(t));
            }
        }
        return new TokenVocabulary(bytes, endOfGeneration);
    }

    /**
     * A vocabulary from each token's bytes (null or empty: never allowed) and its end-of-generation
     * tokens.
     */
    public static TokenVocabulary of(byte[][] tokenBytes, int[] endOfGenerationTokens) {
        return of(tokenBytes, endOfGenerationTokens, Map.of());
    }

    /** As {@link #of(byte[][], int[])}, with special tokens by id and text (they spell no grammar text). */
    public static TokenVocabulary of(byte[][] tokenBytes, int[] endOfGenerationTokens, Map<Integer, String> specialTokens) {
        byte[][] copy = new byte[tokenBytes.length][];
        for (int t = 0; t < copy.length; t++) copy[t] = ordinary(tokenBytes[t]);
        specialTokens.forEach((t, text) -> copy[t] = specialTokenBytes(text));
        for (int t : endOfGenerationTokens) copy[t] = null;
        return new TokenVocabulary(copy, endOfGenerationTokens);
    }

    /** The bytes a special token with this text stands for in a grammar: 0xFF, its UTF-8 text, 0xFF. */
    public static byte[] specialTokenBytes(String text) {
        byte[] utf8 = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] framed = new byte[utf8.length + 2];
        framed[0] = FRAME;
        System.arraycopy(utf8, 0, framed, 1, utf8.length);
        framed[framed.length - 1] = FRAME;
        return framed;
    }

    /** The text of a special token's framed bytes, or null when {@code bytes} are ordinary text. */
    public static String specialTokenText(byte[] bytes) {
        if (bytes == null || bytes.length < 2 || bytes[0] != FRAME) return null;
        return new String(bytes, 1, bytes.length - 2, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static final byte FRAME = (byte) 0xFF;

    private static byte[] ordinary(byte[] bytes) {
        if (bytes == null || bytes.length == 0) return null;
        for (byte b : bytes) {
            if (b == FRAME) return null;
        }
        return bytes.clone();
    }

    public int size() {
        return size;
    }

    /** The length of a mask: one bit per token, in longs. */
    public int maskWords() {
        return words;
    }

    /** Nodes of the trie (for reporting its size). */
    public int trieNodes() {
        return trie.nodes();
    }

    /**
     * The bytes a token spells ({@link #specialTokenBytes framed} for a special token), or null for a token
     * that never matches text. Not a copy: callers must not change it.
     */
    public byte[] bytes(int token) {
        return tokenBytes[token];
    }

    boolean isEndOfGeneration(int token) {
        return (endOfGeneration[token >>> 6] & 1L << token) != 0;
    }

    long[] endOfGenerationBits() {
        return endOfGeneration;
    }

    /**
     * Writes the tokens allowed from {@code state} (grammar text only) into {@code bits}.
     *
     * @return the most bytes that complete the output after any one of these tokens
     */
    int fillTextMask(LazyDfa dfa, DfaState state, long[] bits) {
        CachedMask entry = masks.get(state);
        if (entry == null) {
            long[] dense = new long[words];
            int worst;
            synchronized (dfa.lock) {
                if (loopsOnPlainBytes(dfa, state)) {
                    // Inside a free JSON string: every plain token is allowed and leaves the state as it was,
                    // so only the other tokens need walking (a small part of the trie).
                    System.arraycopy(plain, 0, dense, 0, words);
                    worst = Math.max(state.bytesToComplete, notPlain.walk(dfa, state, dense));
                } else {
                    worst = trie.walk(dfa, state, dense);
                }
            }
            entry = new CachedMask(compact(dense), worst);
            masks.put(state, entry);
        }
        Object cached = entry.bits();
        switch (cached) {
            case long[] dense -> System.arraycopy(dense, 0, bits, 0, words);
            case int[] sparse -> {
                Arrays.fill(bits, 0, words, 0L);
                for (int t : sparse) bits[t >>> 6] |= 1L << t;
            }
            default -> throw new IllegalStateException();
        }
        return entry.worstBytesToComplete();
    }

    /** A state's mask (bits or token ids) and the most bytes that complete the output after any of its tokens. */
    private record CachedMask(Object bits, int worstBytesToComplete) {
    }

    /** Whether every plain byte takes {@code state} back to itself; caller holds the automaton's lock. */
    static boolean loopsOnPlainBytes(LazyDfa dfa, DfaState state) {
        if (!state.canContinue()) return false;
        for (int b = 0x20; b <= 0x7E; b++) {
            if (isPlain(b) && dfa.next(state, b) != state) return false;
        }
        return true;
    }

    /** Few allowed tokens are kept as their ids, many as the bit set. */
    private Object compact(long[] dense) {
        int count = 0;
        for (long w : dense) count += Long.bitCount(w);
        if ((long) count * 32 >= (long) words * 64) return dense;
        int[] ids = new int[count];
        int k = 0;
        for (int w = 0; w < dense.length; w++) {
            long bitsLeft = dense[w];
            while (bitsLeft != 0) {
                ids[k++] = (w << 6) + Long.numberOfTrailingZeros(bitsLeft);
                bitsLeft &= bitsLeft - 1;
            }
        }
        return ids;
    }

    /** Masks by automaton state, least recently used dropped first past the byte budget. */
    private static final class MaskCache {
        private final LinkedHashMap<DfaState, CachedMask> entries = new LinkedHashMap<>(256, 0.75f, true);
        private long bytes;

        synchronized CachedMask get(DfaState state) {
            return entries.get(state);
        }

        synchronized void put(DfaState state, CachedMask mask) {
            CachedMask old = entries.put(state, mask);
            if (old != null) bytes -= sizeOf(old);
            bytes += sizeOf(mask);
            var it = entries.values().iterator();
            while (bytes > MASK_CACHE_BYTES && it.hasNext()) {
                bytes -= sizeOf(it.next());
                it.remove();
            }
        }

        private static long sizeOf(CachedMask mask) {
            return mask.bits() instanceof long[] l ? 8L * l.length : 4L * ((int[]) mask.bits()).length;
        }
    }
}
