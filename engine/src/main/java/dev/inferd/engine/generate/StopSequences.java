package dev.inferd.engine.generate;

import java.util.List;

/**
 * A request's stop sequences matched against a choice's text as it grows: where the first complete
 * one starts, and how much of the text's tail must be held back because it could still grow into one.
 */
final class StopSequences {
    private final List<String> stops;

    StopSequences(List<String> stops) {
        this.stops = List.copyOf(stops);
    }

    boolean isEmpty() {
        return stops.isEmpty();
    }

    /** A complete stop sequence in a text: where it starts, and which one it is. */
    record Match(int at, String stop) {
    }

    /** The earliest complete stop sequence in {@code text} (the first listed of those starting there), or null. */
    Match firstMatch(StringBuilder text) {
        Match first = null;
        for (String stop : stops) {
            int at = text.indexOf(stop);
            if (at >= 0 && (first == null || at < first.at())) first = new Match(at, stop);
        }
        return first;
    }

    /** Length of the longest tail of {@code text} that is a proper prefix of some stop sequence. */
    int heldBack(CharSequence text) {
        int held = 0;
        int length = text.length();
        for (String stop : stops) {
            for (int len = Math.min(stop.length() - 1, length); len > held; len--) {
                if (CharSequence.compare(text.subSequence(length - len, length), stop.subSequence(0, len)) == 0) {
                    held = len;
                    break;
                }
            }
        }
        return held;
    }
}
