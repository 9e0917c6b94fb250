package dev.inferd.speech.whisper;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Word times from the decoder's cross-attention, as Whisper computes them: the alignment heads'
 * attention over the window's audio frames, each head normalised frame by frame over the tokens,
 * smoothed in time by a median filter of width 7 and averaged over the heads; dynamic time warping
 * through the negated weights gives each token the audio frame where it starts; a word runs from
 * the start of its first token to the start of the token after its last. Times are in seconds from
 * the window's start, 20 ms per audio position.
 */
final class WordAlignment {
    static final int MEDIAN_WIDTH = 7;
    static final double SECONDS_PER_POSITION = 0.02;
    /** Languages written without spaces between words: each character sequence that decodes on its own is a word. */
    private static final Set<String> SPACELESS = Set.of("zh", "ja", "th", "lo", "my", "yue");
    private static final String PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

    private WordAlignment() {
    }

    /** A word of the text: its text (with its leading space) and its tokens. */
    record WordTokens(String text, List<Integer> tokens) {
    }

    /** A word and its times, seconds from the window's start. */
    record Timed(String text, List<Integer> tokens, double start, double end) {
    }

    /**
     * The matrix DTW runs on: {@code scores[k]} are head {@code k}'s scaled cross-attention scores
     * ({@code rows x positions}); only the first {@code frames} positions (the audio actually in the
     * window) take part. Returns {@code rows x frames}, the heads' mean of the normalised, filtered
     * softmax.
     */
    static float[] weights(float[][] scores, int rows, int positions, int frames) {
        var mean = new float[rows * frames];
        var w = new float[rows * frames];
        var column = new double[rows];
        var filtered = new float[frames];
        for (float[] head : scores) {
            for (int r = 0; r < rows; r++) {
                System.arraycopy(head, r * positions, w, r * frames, frames);
                Ops.softmax(w, r * frames, frames, 1f);
            }
            for (int f = 0; f < frames; f++) {
                double m = 0;
                for (int r = 0; r < rows; r++) m += column[r] = w[r * frames + f];
                m /= rows;
                double var = 0;
                for (int r = 0; r < rows; r++) var += (column[r] - m) * (column[r] - m);
                // the sample standard deviation, as torch.std gives it
                double std = rows > 1 ? Math.sqrt(var / (rows - 1)) : 0;
                if (std < 1e-12) std = 1;
                for (int r = 0; r < rows; r++) w[r * frames + f] = (float) ((column[r] - m) / std);
            }
            for (int r = 0; r < rows; r++) {
                medianFilter(w, r * frames, frames, MEDIAN_WIDTH, filtered);
                for (int f = 0; f < frames; f++) mean[r * frames + f] += filtered[f] / scores.length;
            }
        }
        return mean;
    }

    /** The median of each {@code width} values around each of {@code n} values from {@code from}, the edges mirrored (not repeated). */
    static void medianFilter(float[] x, int from, int n, int width, float[] out) {
        int half = width / 2;
        if (n <= half) {
            System.arraycopy(x, from, out, 0, n);
            return;
        }
        var window = new float[width];
        for (int i = 0; i < n; i++) {
            for (int k = -half; k <= half; k++) {
                int j = i + k;
                if (j < 0) j = -j;
                if (j >= n) j = 2 * (n - 1) - j;
                window[k + half] = x[from + j];
            }
            Arrays.sort(window);
            out[i] = window[half];
        }
    }

    /**
     * Dynamic time warping through {@code cost} ({@code n x m}): the cheapest path from (0, 0) to
     * (n-1, m-1) stepping down, right or diagonally. Returns the path's rows and columns, in order.
     * Ties go to the diagonal, then down, as Whisper's.
     */
    static int[][] dtw(float[] cost, int n, int m) {
        var acc = new double[(n + 1) * (m + 1)];
        var trace = new byte[(n + 1) * (m + 1)];
        Arrays.fill(acc, Double.POSITIVE_INFINITY);
        acc[0] = 0;
        int w = m + 1;
        for (int j = 1; j <= m; j++) {
            for (int i = 1; i <= n; i++) {
                double c0 = acc[(i - 1) * w + j - 1], c1 = acc[(i - 1) * w + j], c2 = acc[i * w + j - 1];
                double c;
                byte t;
                if (c0 < c1 && c0 < c2) {
                    c = c0;
                    t = 0;
                } else if (c1 < c0 && c1 < c2) {
                    c = c1;
                    t = 1;
                } else {
                    c = c2;
                    t = 2;
                }
                acc[i * w + j] = cost[(i - 1) * m + j - 1] + c;
                trace[i * w + j] = t;
            }
        }
        var rows = new ArrayList<Integer>();
        var cols = new ArrayList<Integer>();
        int i = n, j = m;
        while (i > 0 || j > 0) {
            rows.add(i - 1);
            cols.add(j - 1);
            int t = i == 0 ? 2 : j == 0 ? 1 : trace[i * w + j];
            if (t == 0) {
                i--;
                j--;
            } else if (t == 1) {
                i--;
            } else {
                j--;
            }
        }
        int len = rows.size();
        int[][] path = new int[2][len];
        for (int k = 0; k < len; k++) {
            path[0][k] = rows.get(len - 1 - k);
            path[1][k] = cols.get(len - 1 - k);
        }
        return path;
    }

    /**
     * The text tokens cut into words: a word starts at a token that begins with a space, at
     * punctuation, or (in languages without spaces) at every piece of text that decodes on its own.
     * Tokens that end inside a UTF-8 character join the next.
     */
    static List<WordTokens> words(List<Integer> textTokens, WhisperTokenizer tokenizer, String language) {
        boolean spaceless = SPACELESS.contains(language);
        var pieces = new ArrayList<WordTokens>();
        var current = new ArrayList<Integer>();
        var bytes = new java.io.ByteArrayOutputStream();
        for (int id : textTokens) {
            current.add(id);
            bytes.writeBytes(tokenizer.bytes(id));
            String text = utf8(bytes.toByteArray());
            if (text != null) {
                pieces.add(new WordTokens(text, List.copyOf(current)));
                current.clear();
                bytes.reset();
            }
        }
        if (!current.isEmpty()) pieces.add(new WordTokens(bytes.toString(StandardCharsets.UTF_8), List.copyOf(current)));
        if (spaceless) return pieces;
        var words = new ArrayList<WordTokens>();
        for (var p : pieces) {
            boolean punctuation = !p.text().strip().isEmpty() && PUNCTUATION.contains(p.text().strip()) && p.text().strip().length() == 1;
            if (words.isEmpty() || p.text().startsWith(" ") || punctuation) {
                words.add(p);
            } else {
                var last = words.removeLast();
                var tokens = new ArrayList<>(last.tokens());
                tokens.addAll(p.tokens());
                words.add(new WordTokens(last.text() + p.text(), List.copyOf(tokens)));
            }
        }
        return words;
    }

    private static String utf8(byte[] b) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /**
     * Each word's start and end, seconds from the window's start. {@code matrix} ({@code (tokens + 1) x
     * frames}) has a row per text token, the row before the token's own position predicting it, and a
     * last row predicting the end of text.
     */
    static List<Timed> time(float[] matrix, int frames, List<WordTokens> words) {
        int tokens = 0;
        for (var w : words) tokens += w.tokens().size();
        int n = tokens + 1;
        var cost = new float[n * frames];
        for (int i = 0; i < cost.length; i++) cost[i] = -matrix[i];
        int[][] path = dtw(cost, n, frames);
        // the first frame of each row on the path: where the token starts
        var startOf = new double[n];
        int previous = -1;
        for (int k = 0; k < path[0].length; k++) {
            if (path[0][k] != previous) {
                previous = path[0][k];
                startOf[previous] = path[1][k] * SECONDS_PER_POSITION;
            }
        }
        var out = new ArrayList<Timed>(words.size());
        int first = 0;
        for (var w : words) {
            int next = first + w.tokens().size();
            out.add(new Timed(w.text(), w.tokens(), startOf[first], startOf[next]));
            first = next;
        }
        return out;
    }

    private static final String SENTENCE_ENDS = ".。!！?？";
    private static final String PREPENDED = "\"'“¿([{-";
    private static final String APPENDED = "\"'.。,，!！?？:：”)]}、";

    /**
     * Whisper's clean-up of raw word times: a word longer than twice the median word (the median at
     * most 0.7 s) is cut to that length at a sentence's end or start; opening punctuation joins the
     * word after it and closing punctuation the word before it, that word keeping its times.
     */
    static List<Timed> tidy(List<Timed> words) {
        var list = new ArrayList<>(words);
        var durations = list.stream().mapToDouble(w -> w.end() - w.start()).filter(d -> d > 0).sorted().toArray();
        if (durations.length > 0) {
            double median = Math.min(0.7, durations[durations.length / 2]);
            double max = 2 * median;
            for (int i = 1; i < list.size(); i++) {
                var w = list.get(i);
                if (w.end() - w.start() <= max) continue;
                if (SENTENCE_ENDS.contains(w.text().strip()) && !w.text().isBlank()) {
                    list.set(i, new Timed(w.text(), w.tokens(), w.start(), w.start() + max));
                } else if (!list.get(i - 1).text().isBlank() && SENTENCE_ENDS.contains(list.get(i - 1).text().strip())) {
                    list.set(i, new Timed(w.text(), w.tokens(), w.end() - max, w.end()));
                }
            }
        }
        // opening punctuation joins the following word
        for (int i = list.size() - 2, j = list.size() - 1; i >= 0; i--) {
            var p = list.get(i);
            String s = p.text().strip();
            if (p.text().startsWith(" ") && !s.isEmpty() && PREPENDED.contains(s) && s.length() == 1) {
                var f = list.get(j);
                list.set(j, new Timed(p.text() + f.text(), concat(p.tokens(), f.tokens()), f.start(), f.end()));
                list.set(i, new Timed("", List.of(), p.start(), p.end()));
            } else {
                j = i;
            }
        }
        // closing punctuation joins the preceding word
        for (int i = 0, j = 1; j < list.size(); j++) {
            var p = list.get(i);
            var f = list.get(j);
            if (!p.text().endsWith(" ") && !f.text().isEmpty() && APPENDED.contains(f.text()) && f.text().length() == 1) {
                list.set(i, new Timed(p.text() + f.text(), concat(p.tokens(), f.tokens()), p.start(), p.end()));
                list.set(j, new Timed("", List.of(), f.start(), f.end()));
            } else {
                i = j;
            }
        }
        return list;
    }

    private static List<Integer> concat(List<Integer> a, List<Integer> b) {
        var out = new ArrayList<Integer>(a);
        out.addAll(b);
        return List.copyOf(out);
    }
}
