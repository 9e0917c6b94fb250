package dev.inferd.engine.grammar;

import dev.inferd.engine.sample.TokenConstraint;

/**
 * A {@link Grammar} as the sampler's {@link TokenConstraint}: only tokens that continue a valid
 * output; end of generation masked until the output is complete, and the only choice once nothing
 * else can follow. A constraint may start inactive (free text) and be switched on mid-generation,
 * as when a tool call's opening marker appears in free output ({@link #triggered}).
 */
public final class GrammarConstraint implements TokenConstraint {
    private final TokenVocabulary vocabulary;
    private final long[] allowed;
    private GrammarMatcher matcher;
    private final TriggerWatch watch;
    /** Tokens the sequence may still take, this one included; {@link Integer#MAX_VALUE}: no limit. */
    private int tokensLeft = Integer.MAX_VALUE;

    private GrammarConstraint(TokenVocabulary vocabulary, GrammarMatcher matcher, TriggerWatch watch) {
        this.vocabulary = vocabulary;
        this.allowed = new long[vocabulary.maskWords()];
        this.matcher = matcher;
        this.watch = watch;
    }

    /** Constrains every token of the output. */
    public static GrammarConstraint active(Grammar grammar, TokenVocabulary vocabulary) {
        return new GrammarConstraint(vocabulary, grammar.matcher(vocabulary), null);
    }

    /** Constrains nothing until {@link #activate}. */
    public static GrammarConstraint inactive(TokenVocabulary vocabulary) {
        return new GrammarConstraint(vocabulary, null, null);
    }

    /**
     * Free until {@code trigger} occurs in the output, then constrained by {@code grammar} from there
     * on (the text of the triggering token after the marker is the grammar's first text).
     */
    public static GrammarConstraint triggered(Grammar grammar, TokenVocabulary vocabulary, Trigger trigger) {
        return new GrammarConstraint(vocabulary, null, new TriggerWatch(grammar, trigger));
    }

    /** The factory giving each sequence its own {@link #triggered} constraint. */
    public static Factory triggeredFactory(Grammar grammar, TokenVocabulary vocabulary, Trigger trigger) {
        return () -> triggered(grammar, vocabulary, trigger);
    }

    /** The factory giving each sequence its own matcher of {@code grammar}. */
    public static Factory factory(Grammar grammar, TokenVocabulary vocabulary) {
        return new Factory() {
            @Override
            public TokenConstraint forSequence() {
                return active(grammar, vocabulary);
            }

            @Override
            public int tokensToComplete() {
                return grammar.matcher(vocabulary).tokensToComplete();
            }
        };
    }

    @Override
    public void limit(int maxTokens) {
        tokensLeft = maxTokens;
    }

    /** From the next token on, the output must follow {@code grammar} from its start. */
    public void activate(Grammar grammar) {
        matcher = grammar.matcher(vocabulary);
    }

    public boolean isActive() {
        return matcher != null;
    }

    @Override
    public void mask(float[] logits) {
        if (matcher == null) {
            if (watch != null && tokensLeft != Integer.MAX_VALUE) watch.keepRoomForACall(logits, tokensLeft, vocabulary);
            return;
        }
        matcher.fillMask(allowed);
        if (tokensLeft != Integer.MAX_VALUE) matcher.restrictToBudget(allowed, tokensLeft);
        if (TokenMasks.count(allowed, vocabulary.size()) == 0) {
            // No token can continue (the vocabulary cannot spell what the grammar needs): end rather than pick at random.
            long[] end = vocabulary.endOfGenerationBits();
            System.arraycopy(end, 0, allowed, 0, allowed.length);
        }
        TokenMasks.apply(allowed, logits, 0, Math.min(logits.length, vocabulary.size()));
    }

    @Override
    public void accept(int token) {
        if (tokensLeft != Integer.MAX_VALUE) tokensLeft--;
        if (matcher != null) {
            matcher.accept(token);
        } else if (watch != null) {
            byte[] rest = watch.accept(vocabulary.bytes(token));
            if (rest != null) {
                activate(watch.grammar);
                matcher.acceptBytes(rest);
            }
        }
    }

    /**
     * A copy for masking a speculative draft: the matcher's state where one is active; none while a
     * trigger is still awaited (drafts then go unmasked: the free text's watch is not worth copying).
     */
    @Override
    public TokenConstraint copy() {
        if (matcher != null) {
            var copy = new GrammarConstraint(vocabulary, matcher.copy(), null);
            copy.tokensLeft = tokensLeft; // the draft is steered within the same limit
            return copy;
        }
        return watch == null ? new GrammarConstraint(vocabulary, null, null) : null;
    }

    /** Looks for the trigger in the free output, token by token. */
    private static final class TriggerWatch {
        private static final byte[] NOTHING = new byte[0];
        final Grammar grammar;
        private final Trigger trigger;
        private final byte[][] markers;
        private final int keep;
        /** The output's last bytes, enough to hold all of a marker but its last byte. */
        private byte[] window;
        private int windowLength;
        /** The output from its first non-blank byte while an opening may still match; null once decided. */
        private byte[] opening;
        private int openingLength;
        /** The non-blank bytes outside strings of {@link #opening}. */
        private final StringBuilder openingTokens = new StringBuilder();
        private boolean inString;
        /** Inside a block that triggers nothing (a thinking block). */
        private boolean quiet;
        private final byte[] quietOpen;
        private final byte[] quietClose;

        /** Tokens a call takes from its marker on (the marker's token and the grammar's shortest completion); -1 until needed. */
        private int callTokens = -1;

        /**
         * With {@code tokensLeft} to go: a call marker only while a call opened by it can still be
         * completed, and a thinking block closed at the last step that leaves room for one after it. Markers
         * written as text, and replies that open as a JSON call, are not held back here: the budget
         * steers such a call once the grammar is on, but cannot give it room it no longer has.
         */
        void keepRoomForACall(float[] logits, int tokensLeft, TokenVocabulary vocabulary) {
            if (callTokens < 0) {
                int grammarTokens = grammar.matcher(vocabulary).tokensToComplete();
                callTokens = grammarTokens == Integer.MAX_VALUE ? Integer.MAX_VALUE : grammarTokens + 1;
            }
            if (callTokens == Integer.MAX_VALUE) return;
            if (quiet) {
                int[] close = vocabulary.specialTokens(trigger.quietClose());
                // Close the thinking at the last step after which a call (marker included) still fits;
                // with fewer tokens than that no call can be had, and the thinking goes on as it would.
                if (close.length == 0 || tokensLeft != callTokens + 1) return;
                float[] kept = new float[close.length];
                for (int i = 0; i < close.length; i++) kept[i] = logits[close[i]];
                java.util.Arrays.fill(logits, Float.NEGATIVE_INFINITY);
                for (int i = 0; i < close.length; i++) logits[close[i]] = Float.isFinite(kept[i]) ? kept[i] : 0f;
                return;
            }
            if (tokensLeft >= callTokens) return;
            for (String marker : trigger.markers()) {
                for (int t : vocabulary.specialTokens(marker)) {
                    if (t < logits.length) logits[t] = Float.NEGATIVE_INFINITY;
                }
            }
        }

        TriggerWatch(Grammar grammar, Trigger trigger) {
            this.grammar = grammar;
            this.trigger = trigger;
            this.markers = trigger.markerBytes();
            this.quiet = trigger.startsQuiet();
            this.quietOpen = trigger.quietOpen() == null ? null : trigger.quietOpen().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            this.quietClose = trigger.quietClose() == null ? null : trigger.quietClose().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            int longest = 0;
            for (byte[] m : markers) longest = Math.max(longest, m.length);
            if (quietOpen != null) longest = Math.max(longest, Math.max(quietOpen.length, quietClose.length));
            this.keep = Math.max(0, longest - 1);
            this.window = new byte[keep + 64];
            this.opening = trigger.openings().isEmpty() ? null : new byte[64];
        }

        /** The output under the grammar when this token completes the trigger (its text after the marker), else null. */
        byte[] accept(byte[] bytes) {
            if (bytes == null) return null;
            String special = TokenVocabulary.specialTokenText(bytes);
            if (special != null) {
                windowLength = 0; // a special token is no text: a marker cannot run across it
                if (quiet) {
                    quiet = !special.equals(trigger.quietClose());
                    return null;
                }
                if (special.equals(trigger.quietOpen())) {
                    quiet = true;
                    return null;
                }
                if (opening != null && !special.isBlank()) opening = null; // the output did not open with a call
                return trigger.markers().contains(special) ? NOTHING : null;
            }
            if (opening != null && !quiet) {
                byte[] opened = watchOpening(bytes);
                if (opened != null) return opened;
            }
            return markers.length == 0 && quietOpen == null ? null : watchMarkers(bytes);
        }

        private byte[] watchOpening(byte[] bytes) {
            for (byte b : bytes) {
                boolean blank = b == ' ' || b == '\t' || b == '\n' || b == '\r';
                if (openingLength == 0 && blank) continue;
                if (openingLength == opening.length) opening = java.util.Arrays.copyOf(opening, openingLength * 2);
                opening[openingLength++] = b;
                if (blank && !inString) continue;
                if (b == '"') inString = !inString;
                openingTokens.append((char) (b & 0xFF));
            }
            if (openingLength == 0) return null;
            boolean possible = false;
            for (String o : trigger.openings()) {
                if (!startsAlike(o, openingTokens)) continue;
                if (openingTokens.length() >= o.length()) {
                    byte[] opened = java.util.Arrays.copyOf(opening, openingLength);
                    opening = null;
                    return opened;
                }
                possible = true;
            }
            if (!possible) opening = null;
            return null;
        }

        private static boolean startsAlike(String a, CharSequence b) {
            int n = Math.min(a.length(), b.length());
            for (int i = 0; i < n; i++) {
                if (a.charAt(i) != b.charAt(i)) return false;
            }
            return true;
        }

        private byte[] watchMarkers(byte[] bytes) {
            int before = windowLength;
            if (window.length < before + bytes.length) window = java.util.Arrays.copyOf(window, before + bytes.length + 64);
            System.arraycopy(bytes, 0, window, before, bytes.length);
            windowLength = before + bytes.length;
            int from = 0;
            while (true) {
                // The earliest of: a call marker (when not quiet), the quiet block's opening or closing.
                int end = -1;
                boolean toggles = false;
                if (quiet) {
                    int at = find(quietClose, Math.max(from, before - quietClose.length + 1));
                    if (at >= 0) {
                        end = at + quietClose.length;
                        toggles = true;
                    }
                } else {
                    for (byte[] m : markers) {
                        int at = find(m, Math.max(from, before - m.length + 1));
                        if (at >= 0 && (end < 0 || at + m.length < end)) end = at + m.length;
                    }
                    if (quietOpen != null) {
                        int at = find(quietOpen, Math.max(from, before - quietOpen.length + 1));
                        if (at >= 0 && (end < 0 || at + quietOpen.length <= end)) {
                            end = at + quietOpen.length;
                            toggles = true;
                        }
                    }
                }
                if (end < 0) break;
                if (!toggles) return java.util.Arrays.copyOfRange(window, end, windowLength);
                quiet = !quiet;
                from = end;
            }
            int drop = Math.max(windowLength - keep, from); // what a block's opening or closing used is gone
            if (drop > 0) {
                System.arraycopy(window, drop, window, 0, windowLength - drop);
                windowLength -= drop;
            }
            return null;
        }

        private int find(byte[] marker, int from) {
            outer:
            for (int i = from; i + marker.length <= windowLength; i++) {
                for (int j = 0; j < marker.length; j++) {
                    if (window[i + j] != marker[j]) continue outer;
                }
                return i;
            }
            return -1;
        }
    }
}
