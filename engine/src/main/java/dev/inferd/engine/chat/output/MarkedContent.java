package dev.inferd.engine.chat.output;

/**
 * Content between calls, watched for the syntax's opening marker: a possible marker's beginning is
 * held back until it is one or is not. Whitespace is dropped at the start of the output and after
 * calls (it would only separate calls).
 */
final class MarkedContent {
    private final String marker;
    private final CallOutput out;
    private final StringBuilder held = new StringBuilder();
    private boolean dropWhitespace = true;

    /** @param marker the text that opens a call, or null for none (all is content) */
    MarkedContent(String marker, CallOutput out) {
        this.marker = marker;
        this.out = out;
    }

    /** One character of content; true when it completed the opening marker (which is not content). */
    boolean accept(char c) {
        if (dropWhitespace && Character.isWhitespace(c) && held.isEmpty()) {
            return false;
        }
        if (marker == null) {
            dropWhitespace = false;
            out.content(c);
            return false;
        }
        held.append(c);
        while (!held.isEmpty() && !Markers.isPrefix(held, marker)) {
            if (dropWhitespace && Character.isWhitespace(held.charAt(0))) {
                held.deleteCharAt(0);
                continue;
            }
            dropWhitespace = false;
            out.content(held.charAt(0));
            held.deleteCharAt(0);
        }
        if (held.length() == marker.length()) {
            held.setLength(0);
            return true;
        }
        return false;
    }

    /** Calls ended: whitespace is dropped again until other text comes. */
    void afterCalls() {
        dropWhitespace = true;
    }

    /** The output ended: a held marker's beginning is content after all. */
    void finish() {
        if (!dropWhitespace || !held.toString().isBlank()) {
            out.content(held);
        }
        held.setLength(0);
    }
}
