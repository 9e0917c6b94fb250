package dev.inferd.engine.generate;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns one choice's generated token bytes into releasable text. Text is held back while it ends in
 * an unfinished UTF-8 character, or while its tail could still grow into a stop sequence
 * ({@link StopSequences}); a stop sequence that completes cuts the text before it, and it is never
 * released. Each token's log-probability is released with the text that completes it.
 */
final class ChoiceText {
    /**
     * What may be sent now. {@code stopSequence} non-null means that stop string matched: the choice is over.
     */
    record Release(String text, List<TokenLogprob> tokens, String stopSequence) {
        static final Release NOTHING = new Release("", List.of(), null);

        boolean stopped() {
            return stopSequence != null;
        }
    }

    private record PendingToken(TokenLogprob logprob, int startOffset, int endOffset) {
    }

    private final StopSequences stops;
    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    private byte[] bytes = new byte[64];
    private int byteCount;
    /** Decoded text not yet released. Offsets below count from the start of the whole choice's text. */
    private final StringBuilder pending = new StringBuilder();
    private int releasedChars;
    private final ArrayDeque<PendingToken> tokens = new ArrayDeque<>();

    ChoiceText(List<String> stops) {
        this.stops = new StopSequences(stops);
    }

    /** Adds a generated token; {@code logprob} may be null when log-probabilities were not asked for. */
    Release add(byte[] tokenBytes, TokenLogprob logprob) {
        int start = releasedChars + pending.length();
        appendBytes(tokenBytes);
        decodeComplete(false);
        if (logprob != null) tokens.add(new PendingToken(logprob, start, releasedChars + pending.length()));

        StopSequences.Match match = stops.isEmpty() ? null : stops.firstMatch(pending);
        if (match != null) {
            return release(match.at(), match.stop());
        }
        return release(pending.length() - (stops.isEmpty() ? 0 : stops.heldBack(pending)), null);
    }

    /** The choice ended for another reason: everything still held back goes out. */
    Release flush() {
        decodeComplete(true);
        return release(pending.length(), null);
    }

    private void appendBytes(byte[] b) {
        if (byteCount + b.length > bytes.length) {
            bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, byteCount + b.length));
        }
        System.arraycopy(b, 0, bytes, byteCount, b.length);
        byteCount += b.length;
    }

    /** Decodes all buffered bytes except a trailing, still-incomplete UTF-8 character (unless at the end). */
    private void decodeComplete(boolean endOfInput) {
        int complete = endOfInput ? byteCount : byteCount - incompleteTail();
        if (complete == 0) return;
        CharBuffer chars;
        try {
            decoder.reset();
            chars = decoder.decode(ByteBuffer.wrap(bytes, 0, complete));
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new IllegalStateException(e); // cannot happen with REPLACE
        }
        pending.append(chars);
        System.arraycopy(bytes, complete, bytes, 0, byteCount - complete);
        byteCount -= complete;
    }

    /** How many trailing bytes form the start of a UTF-8 character whose continuation has not come yet. */
    private int incompleteTail() {
        for (int back = 1; back <= Math.min(3, byteCount); back++) {
            int b = bytes[byteCount - back] & 0xFF;
            if ((b & 0xC0) == 0x80) continue; // continuation byte: look further back for the lead
            int need = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 1;
            return need > back ? back : 0;
        }
        return 0;
    }

    private Release release(int chars, String stopSequence) {
        boolean stopped = stopSequence != null;
        if (chars == 0 && !stopped && tokens.isEmpty()) return Release.NOTHING;
        String text = pending.substring(0, chars);
        int boundary = releasedChars + chars;
        List<TokenLogprob> out = new ArrayList<>();
        // A token whose text is cut by a stop string still goes out if any of its text does.
        while (!tokens.isEmpty()) {
            PendingToken t = tokens.peek();
            boolean whollyReleased = t.endOffset() <= boundary;
            boolean startsBeforeStop = stopped && t.startOffset() < boundary;
            if (!whollyReleased && !startsBeforeStop) break;
            out.add(tokens.poll().logprob());
        }
        if (stopped) tokens.clear();
        pending.delete(0, chars);
        releasedChars = boundary;
        if (text.isEmpty() && out.isEmpty() && !stopped) return Release.NOTHING;
        return new Release(text, List.copyOf(out), stopSequence);
    }
}
