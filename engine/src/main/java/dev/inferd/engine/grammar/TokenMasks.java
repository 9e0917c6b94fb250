package dev.inferd.engine.grammar;

/** Applying a token mask (one bit per token, as {@link GrammarMatcher#fillMask} writes it) to logits. */
public final class TokenMasks {
    private TokenMasks() {
    }

    /**
     * Sets the logit of every token whose bit is clear to negative infinity, so that no sampler (greedy,
     * temperature, nucleus) can choose it. Whole words of allowed tokens are skipped at once.
     */
    public static void apply(long[] allowed, float[] logits, int offset, int vocabSize) {
        int words = (vocabSize + 63) >>> 6;
        for (int w = 0; w < words; w++) {
            long bits = allowed[w];
            if (bits == -1L) continue;
            int base = w << 6;
            int end = Math.min(64, vocabSize - base);
            if (bits == 0L) {
                java.util.Arrays.fill(logits, offset + base, offset + base + end, Float.NEGATIVE_INFINITY);
                continue;
            }
            for (int b = 0; b < end; b++) {
                if ((bits & 1L << b) == 0) logits[offset + base + b] = Float.NEGATIVE_INFINITY;
            }
        }
    }

    /** The number of allowed tokens. */
    public static int count(long[] allowed, int vocabSize) {
        int words = (vocabSize + 63) >>> 6;
        int n = 0;
        for (int w = 0; w < words; w++) {
            int inWord = Math.min(64, vocabSize - (w << 6));
            long bits = inWord == 64 ? allowed[w] : allowed[w] & ((1L << inWord) - 1);
            n += Long.bitCount(bits);
        }
        return n;
    }
}
