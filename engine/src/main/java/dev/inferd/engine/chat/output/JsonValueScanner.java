package dev.inferd.engine.chat.output;

/**
 * Finds where one JSON value ends in text fed a character at a time, without building it: counts
 * brackets outside strings, follows escapes. It does not validate (a grammar, or the client, does).
 */
final class JsonValueScanner {
    enum Step { MORE, END_AFTER, END_BEFORE, INVALID }

    private enum Kind { NONE, CONTAINER, STRING, PRIMITIVE }

    private Kind kind = Kind.NONE;
    private int depth;
    private boolean inString;
    private boolean escaped;

    /**
     * @return {@link Step#MORE} (c belongs to the value, which goes on), {@link Step#END_AFTER} (c
     *         ends it), {@link Step#END_BEFORE} (the value ended just before c, which is not part of
     *         it), or {@link Step#INVALID} (c cannot start a value)
     */
    Step feed(char c) {
        switch (kind) {
            case NONE -> {
                if (c == '{' || c == '[') {
                    kind = Kind.CONTAINER;
                    depth = 1;
                } else if (c == '"') {
                    kind = Kind.STRING;
                } else if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
                    kind = Kind.PRIMITIVE;
                } else {
                    return Step.INVALID;
                }
                return Step.MORE;
            }
            case STRING -> {
                if (escaped) {
                    escaped = false;
                } else if (c == '\\') {
                    escaped = true;
                } else if (c == '"') {
                    return Step.END_AFTER;
                }
                return Step.MORE;
            }
            case PRIMITIVE -> {
                boolean part = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                        || c == '.' || c == '+' || c == '-';
                return part ? Step.MORE : Step.END_BEFORE;
            }
            case CONTAINER -> {
                if (inString) {
                    if (escaped) {
                        escaped = false;
                    } else if (c == '\\') {
                        escaped = true;
                    } else if (c == '"') {
                        inString = false;
                    }
                } else if (c == '"') {
                    inString = true;
                } else if (c == '{' || c == '[') {
                    depth++;
                } else if (c == '}' || c == ']') {
                    if (--depth == 0) {
                        return Step.END_AFTER;
                    }
                }
                return Step.MORE;
            }
        }
        throw new AssertionError(kind);
    }

    /** A primitive (number, true, false, null) ends only at the next delimiter, which may never come. */
    boolean endsAtEndOfText() {
        return kind == Kind.PRIMITIVE;
    }
}
