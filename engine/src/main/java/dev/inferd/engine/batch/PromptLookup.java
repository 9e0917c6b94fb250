package dev.inferd.engine.batch;

/**
 * Drafts without a draft model: when the sequence's last tokens already occurred earlier in it (the
 * prompt or the text generated so far), proposes the tokens that followed them then. Output that
 * quotes its input (code edits, extraction, JSON echoing a document, a summary citing sentences)
 * repeats such runs, and the target verifies them in one pass.
 */
public final class PromptLookup {
    /** The longest suffix looked for; longer matches predict better but are found less often. */
    static final int MAX_NGRAM = 4;
    /**
     * The shortest: below three tokens a match is mostly chance in a small vocabulary, and every wrong
     * draft costs verification rows.
     */
    static final int MIN_NGRAM = 3;

    private PromptLookup() {
    }

    /**
     * Fills {@code draft} with up to {@code maxDraft} tokens that followed the latest earlier occurrence of
     * the longest suffix of {@code tokens[0..size)} (between {@link #MIN_NGRAM} and {@link #MAX_NGRAM} tokens).
     *
     * @return how many tokens it proposed (0 when nothing matched)
     */
    public static int propose(int[] tokens, int size, int maxDraft, int[] draft) {
        int limit = Math.min(maxDraft, draft.length);
        if (limit <= 0) return 0;
        for (int n = Math.min(MAX_NGRAM, size - 1); n >= MIN_NGRAM; n--) {
            int suffix = size - n;
            // the latest occurrence first: what the text did most recently is the best guess
            for (int start = suffix - 1; start >= 0; start--) {
                if (!matches(tokens, start, suffix, n)) continue;
                int from = start + n;
                int count = Math.min(limit, size - from);
                System.arraycopy(tokens, from, draft, 0, count);
                return count;
            }
        }
        return 0;
    }

    private static boolean matches(int[] tokens, int a, int b, int n) {
        for (int i = 0; i < n; i++) if (tokens[a + i] != tokens[b + i]) return false;
        return true;
    }
}
