package dev.inferd.engine.chat.output;

/** Text a syntax expects next, such as a closing tag or a code fence, after optional whitespace. */
final class ExpectedText {
    enum Result { WAITING, MATCHED, MISMATCHED }

    private final String text;
    private final StringBuilder held = new StringBuilder();

    ExpectedText(String text) {
        this.text = text;
    }

    Result accept(char c) {
        if (held.isEmpty() && Character.isWhitespace(c)) {
            return Result.WAITING;
        }
        held.append(c);
        if (!Markers.isPrefix(held, text)) {
            return Result.MISMATCHED;
        }
        if (held.length() == text.length()) {
            held.setLength(0);
            return Result.MATCHED;
        }
        return Result.WAITING;
    }

    /** After a mismatch: what was read, to be read again as what it is. */
    String takeHeld() {
        String s = held.toString();
        held.setLength(0);
        return s;
    }

    void clear() {
        held.setLength(0);
    }
}
