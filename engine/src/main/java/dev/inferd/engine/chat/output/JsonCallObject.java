package dev.inferd.engine.chat.output;

/**
 * One call object, {@code {"name": ..., "arguments": ...}} with keys in any order and others
 * ignored, read character by character: the name is reported as soon as its string is complete, then
 * the arguments as they come (decoded, when a model writes them as a JSON string). Arguments met
 * before the name wait for it. Every call syntax here writes its calls as such objects.
 */
final class JsonCallObject {
    private final CallOutput out;

    JsonCallObject(CallOutput out) {
        this.out = out;
    }

    enum State { OPEN, KEY_OR_END, KEY_START, KEY, COLON, VALUE_START, NAME, VALUE, STRING_ARGUMENTS, AFTER_VALUE }

    enum Result { MORE, DONE, INVALID }

    private enum Role { NAME, ARGUMENTS, OTHER }

    State state = State.OPEN;
    final StringBuilder raw = new StringBuilder();
    String name;
    int index = -1;
    private final StringBuilder key = new StringBuilder();
    private final StringBuilder nameText = new StringBuilder();
    private StringBuilder argumentsBeforeName;
    private Role role;
    private JsonValueScanner scanner;
    private boolean escaped;
    private int unicodeDigits = -1;
    private int unicodeValue;
    private boolean sawArguments;

    void beginValueOf(String k) {
        key.setLength(0);
        key.append(k);
        state = State.COLON;
    }

    Result feed(char c) {
        raw.append(c);
        switch (state) {
            case OPEN -> {
                if (Character.isWhitespace(c)) {
                    return Result.MORE;
                }
                if (c != '{') {
                    return invalid();
                }
                state = State.KEY_OR_END;
            }
            case KEY_OR_END, KEY_START -> {
                if (Character.isWhitespace(c)) {
                    return Result.MORE;
                }
                if (c == '}' && state == State.KEY_OR_END) {
                    return done();
                }
                if (c != '"') {
                    return invalid();
                }
                key.setLength(0);
                state = State.KEY;
            }
            case KEY -> {
                if (stringChar(c, key)) {
                    state = State.COLON;
                }
            }
            case COLON -> {
                if (Character.isWhitespace(c)) {
                    return Result.MORE;
                }
                if (c != ':') {
                    return invalid();
                }
                String k = key.toString();
                role = k.equals("name") ? Role.NAME
                        : (k.equals("arguments") || k.equals("parameters")) && !sawArguments ? Role.ARGUMENTS : Role.OTHER;
                state = State.VALUE_START;
            }
            case VALUE_START -> {
                if (Character.isWhitespace(c)) {
                    return Result.MORE;
                }
                if (role == Role.NAME) {
                    if (c != '"' || name != null) {
                        return invalid();
                    }
                    nameText.setLength(0);
                    state = State.NAME;
                } else if (role == Role.ARGUMENTS && c == '"') {
                    sawArguments = true;
                    state = State.STRING_ARGUMENTS;
                } else {
                    scanner = new JsonValueScanner();
                    if (role == Role.ARGUMENTS) {
                        sawArguments = true;
                    }
                    state = State.VALUE;
                    return value(c);
                }
            }
            case NAME -> {
                if (stringChar(c, nameText)) {
                    name = nameText.toString();
                    index = out.startCall(name);
                    if (argumentsBeforeName != null) {
                        out.arguments(argumentsBeforeName);
                        argumentsBeforeName = null;
                    }
                    state = State.AFTER_VALUE;
                }
            }
            case VALUE -> {
                return value(c);
            }
            case STRING_ARGUMENTS -> {
                var decoded = new StringBuilder(2);
                if (stringChar(c, decoded)) {
                    state = State.AFTER_VALUE;
                } else {
                    emitArguments(decoded);
                }
            }
            case AFTER_VALUE -> {
                if (Character.isWhitespace(c)) {
                    return Result.MORE;
                }
                if (c == ',') {
                    state = State.KEY_START;
                } else if (c == '}') {
                    return done();
                } else {
                    return invalid();
                }
            }
        }
        return Result.MORE;
    }

    private Result value(char c) {
        switch (scanner.feed(c)) {
            case MORE -> {
                if (role == Role.ARGUMENTS) {
                    emitArguments(c);
                }
                return Result.MORE;
            }
            case END_AFTER -> {
                if (role == Role.ARGUMENTS) {
                    emitArguments(c);
                }
                state = State.AFTER_VALUE;
                return Result.MORE;
            }
            case END_BEFORE -> {
                state = State.AFTER_VALUE;
                raw.setLength(raw.length() - 1);
                return feed(c);
            }
            default -> {
                return invalid();
            }
        }
    }

    private void emitArguments(char c) {
        if (name == null) {
            if (argumentsBeforeName == null) {
                argumentsBeforeName = new StringBuilder();
            }
            argumentsBeforeName.append(c);
        } else {
            out.argument(index, c);
        }
    }

    private void emitArguments(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            emitArguments(s.charAt(i));
        }
    }

    /** Adds a JSON string's next character, decoded, to {@code into}; true at its closing quote. */
    private boolean stringChar(char c, StringBuilder into) {
        if (unicodeDigits >= 0) {
            int digit = Character.digit(c, 16);
            unicodeValue = unicodeValue * 16 + Math.max(digit, 0);
            if (++unicodeDigits == 4) {
                into.append((char) unicodeValue);
                unicodeDigits = -1;
            }
            return false;
        }
        if (escaped) {
            escaped = false;
            switch (c) {
                case 'n' -> into.append('\n');
                case 't' -> into.append('\t');
                case 'r' -> into.append('\r');
                case 'b' -> into.append('\b');
                case 'f' -> into.append('\f');
                case 'u' -> {
                    unicodeDigits = 0;
                    unicodeValue = 0;
                }
                default -> into.append(c);
            }
            return false;
        }
        if (c == '\\') {
            escaped = true;
            return false;
        }
        if (c == '"') {
            return true;
        }
        into.append(c);
        return false;
    }

    private Result done() {
        return Result.DONE;
    }

    private Result invalid() {
        raw.setLength(raw.length() - 1);
        return Result.INVALID;
    }
}
