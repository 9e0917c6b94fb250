package dev.inferd.engine.tokenizer;

/**
 * The pieces of a word during BPE merging: a doubly linked list over character ranges of the text,
 * so a merge is O(1) and the queue of candidate pairs never rescans the word. A merged-away symbol
 * has length 0; a symbol's start never moves.
 */
final class Symbols {
    final int[] start;
    final int[] len;
    final int[] prev;
    final int[] next;

    private Symbols(int n) {
        start = new int[n];
        len = new int[n];
        prev = new int[n];
        next = new int[n];
    }

    /** One symbol per code point of {@code text}. */
    static Symbols ofCodePoints(String text) {
        Symbols s = new Symbols(text.codePointCount(0, text.length()));
        int n = s.start.length;
        for (int i = 0, offset = 0; i < n; i++) {
            int width = Character.charCount(text.codePointAt(offset));
            s.start[i] = offset;
            s.len[i] = width;
            s.prev[i] = i - 1;
            s.next[i] = i + 1 < n ? i + 1 : -1;
            offset += width;
        }
        return s;
    }

    int count() {
        return start.length;
    }

    String text(String source, int i) {
        return source.substring(start[i], start[i] + len[i]);
    }

    /** Appends symbol {@code i}'s successor to it and unlinks the successor. */
    void mergeWithNext(int i) {
        int right = next[i];
        len[i] += len[right];
        len[right] = 0;
        next[i] = next[right];
        if (next[right] >= 0) prev[next[right]] = i;
    }
}
