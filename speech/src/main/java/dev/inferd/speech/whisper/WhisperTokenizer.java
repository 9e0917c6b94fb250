package dev.inferd.speech.whisper;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Whisper's tokenizer from a model file's vocabulary: byte-level BPE whose merge order is the token
 * order (a tiktoken vocabulary's rank is its id), plus the {@link SpecialTokens}.
 */
public final class WhisperTokenizer {
    private static final Pattern PIECES = Pattern.compile(
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+");

    private final byte[][] tokens;
    /** Token bytes as Latin-1 strings (one char per byte) to their ids. */
    private final Map<String, Integer> ids;
    private final SpecialTokens specials;

    public WhisperTokenizer(List<byte[]> words, SpecialTokens specials) {
        this.specials = specials;
        tokens = words.toArray(byte[][]::new);
        ids = new HashMap<>(tokens.length * 2);
        for (int i = 0; i < tokens.length; i++) {
            if (i < specials.endOfText() && tokens[i].length > 0) ids.putIfAbsent(latin1(tokens[i]), i);
        }
    }

    public SpecialTokens specials() { return specials; }

    public int vocabSize() { return specials.vocabSize(); }

    /** The ordinary token whose bytes are {@code text}'s UTF-8, or -1. */
    public int idOf(String text) {
        return ids.getOrDefault(latin1(text.getBytes(StandardCharsets.UTF_8)), -1);
    }

    /** The bytes token {@code id} stands for; empty for special and timestamp tokens. */
    public byte[] bytes(int id) {
        if (id >= 0 && id < specials.endOfText() && id < tokens.length) return tokens[id];
        return new byte[0];
    }

    /** The text of ordinary tokens (specials left out), as UTF-8. */
    public String decode(List<Integer> ids) {
        var out = new ByteArrayOutputStream();
        for (int id : ids) out.writeBytes(bytes(id));
        return out.toString(StandardCharsets.UTF_8);
    }

    /** How a token reads in logs and tests: its text, or {@code <|...|>} for a special. */
    public String display(int id) {
        if (id < specials.endOfText()) return new String(bytes(id), StandardCharsets.UTF_8);
        if (id == specials.endOfText()) return "<|endoftext|>";
        if (id == specials.startOfTranscript()) return "<|startoftranscript|>";
        if (specials.isLanguage(id)) return "<|" + Languages.byIndex(id - specials.startOfTranscript() - 1).code() + "|>";
        if (id == specials.translate()) return "<|translate|>";
        if (id == specials.transcribe()) return "<|transcribe|>";
        if (id == specials.startOfLm()) return "<|startoflm|>";
        if (id == specials.startOfPrev()) return "<|startofprev|>";
        if (id == specials.noSpeech()) return "<|nospeech|>";
        if (id == specials.noTimestamps()) return "<|notimestamps|>";
        if (specials.isTimestamp(id)) return String.format(java.util.Locale.ROOT, "<|%.2f|>", specials.seconds(id));
        return "<|extra_" + id + "|>";
    }

    /** {@code text} as ordinary tokens. */
    public List<Integer> encode(String text) {
        var out = new ArrayList<Integer>();
        var m = PIECES.matcher(text);
        while (m.find()) encodePiece(m.group().getBytes(StandardCharsets.UTF_8), out);
        return out;
    }

    private void encodePiece(byte[] piece, List<Integer> out) {
        Integer whole = ids.get(latin1(piece));
        if (whole != null) {
            out.add(whole);
            return;
        }
        // merge the adjacent pair whose joined bytes have the lowest rank until none joins into a token
        var parts = new ArrayList<String>();
        for (byte b : piece) parts.add(String.valueOf((char) (b & 0xff)));
        while (parts.size() > 1) {
            int best = -1, bestRank = Integer.MAX_VALUE;
            for (int i = 0; i + 1 < parts.size(); i++) {
                Integer rank = ids.get(parts.get(i) + parts.get(i + 1));
                if (rank != null && rank < bestRank) {
                    bestRank = rank;
                    best = i;
                }
            }
            if (best < 0) break;
            parts.set(best, parts.get(best) + parts.remove(best + 1));
        }
        for (String p : parts) {
            Integer id = ids.get(p);
            // some converted files stored bytes that are not UTF-8 on their own as U+FFFD, so a lone byte
            // can lack a token: such a byte cannot be given to the model and is left out of the prompt
            if (id != null) out.add(id);
        }
    }

    private static String latin1(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }
}
