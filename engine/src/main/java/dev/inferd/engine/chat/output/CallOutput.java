package dev.inferd.engine.chat.output;

/**
 * What a call syntax parser tells its listener, batched: consecutive text of one kind goes out as one
 * piece per fed piece. Also numbers the calls and keeps the open call's region (the text since its
 * opening marker) for {@link OpenCall}.
 */
final class CallOutput {
    private enum Kind { NONE, CONTENT, ARGUMENTS }

    private final OutputListener listener;
    private int calls;
    private int openIndex = -1;
    private String openName;
    private StringBuilder region;
    private int incomplete = -1;

    private Kind outKind = Kind.NONE;
    private int outIndex;
    private final StringBuilder out = new StringBuilder();

    CallOutput(OutputListener listener) {
        this.listener = listener;
    }

    /** Every fed character, before the parser reads it: inside a call region it is part of that region's text. */
    void record(char c) {
        if (region != null) {
            region.append(c);
        }
    }

    /** A call region opens; {@code already} is what of it was read before (a reply that opened as JSON). */
    void openRegion(CharSequence already) {
        region = new StringBuilder(already);
    }

    void closeRegion() {
        region = null;
        callDone();
    }

    /** The call being written is over (the region may hold more calls). */
    void callDone() {
        openName = null;
        openIndex = -1;
    }

    OpenCall openCall() {
        if (region == null) {
            return null;
        }
        return new OpenCall(openIndex >= 0 ? openIndex : calls, openName, region.toString());
    }

    /** A call's function is known: it gets the next number, which is returned. */
    int startCall(String name) {
        int index = calls++;
        openIndex = index;
        openName = name;
        flush();
        listener.toolCallStarted(index, name);
        return index;
    }

    int openIndex() {
        return openIndex;
    }

    void markIncomplete(int index) {
        incomplete = index;
    }

    /** The call the output ended inside, or -1. */
    int incomplete() {
        return incomplete;
    }

    void content(char c) {
        if (outKind != Kind.CONTENT) {
            flush();
            outKind = Kind.CONTENT;
        }
        out.append(c);
    }

    void content(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            content(s.charAt(i));
        }
    }

    /** Arguments text of the open call. */
    void arguments(CharSequence s) {
        switchToArguments(openIndex);
        out.append(s);
    }

    void argument(int index, char c) {
        switchToArguments(index);
        out.append(c);
    }

    /** One character of text that the arguments carry inside a JSON string, escaped. */
    void escapedArgument(char c) {
        switch (c) {
            case '"' -> arguments("\\\"");
            case '\\' -> arguments("\\\\");
            case '\n' -> arguments("\\n");
            case '\r' -> arguments("\\r");
            case '\t' -> arguments("\\t");
            default -> {
                if (c < 0x20) {
                    arguments(String.format("\\u%04x", (int) c));
                } else {
                    argument(openIndex, c);
                }
            }
        }
    }

    void escapedArguments(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            escapedArgument(s.charAt(i));
        }
    }

    private void switchToArguments(int index) {
        if (outKind != Kind.ARGUMENTS || outIndex != index) {
            flush();
            outKind = Kind.ARGUMENTS;
            outIndex = index;
        }
    }

    /** Sends what is batched; called at the end of each fed piece. */
    void flush() {
        if (!out.isEmpty()) {
            if (outKind == Kind.CONTENT) {
                listener.content(out.toString());
            } else {
                listener.toolCallArguments(outIndex, out.toString());
            }
            out.setLength(0);
        }
        outKind = Kind.NONE;
    }
}
