package dev.inferd.engine.chat.output;

/**
 * Mistral calls: {@code [TOOL_CALLS][{"name": "f", "arguments": {...}}, ...]} (or one object without
 * the list), possibly after some text; an {@code "id"} key may follow the arguments.
 */
final class MistralCallParser extends CallSyntaxParser {

    private enum Mode { CONTENT, AFTER_MARKER, LIST_EXPECT_CALL, LIST_AFTER_CALL, CALL }

    private Mode mode = Mode.CONTENT;
    private final MarkedContent content;
    private boolean inList;

    MistralCallParser(OutputListener listener) {
        super(listener);
        this.content = new MarkedContent(ToolCallFormat.MISTRAL.openingMarker(), out);
    }

    @Override
    void step(char c) {
        switch (mode) {
            case CONTENT -> {
                if (content.accept(c)) {
                    out.openRegion("");
                    inList = false;
                    mode = Mode.AFTER_MARKER;
                }
            }
            case AFTER_MARKER -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                if (c == '[') {
                    inList = true;
                    mode = Mode.LIST_EXPECT_CALL;
                } else {
                    callFrom(c);
                }
            }
            case LIST_EXPECT_CALL -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                if (c == ']') {
                    endRegion();
                } else {
                    callFrom(c);
                }
            }
            case LIST_AFTER_CALL -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                if (c == ',') {
                    mode = Mode.LIST_EXPECT_CALL;
                } else if (c == ']') {
                    endRegion();
                } else {
                    endRegion();
                    step(c);
                }
            }
            case CALL -> callChar(c);
        }
    }

    private void callFrom(char c) {
        mode = Mode.CALL;
        beginCallObject();
        callChar(c);
    }

    @Override
    void end() {
        switch (mode) {
            case CONTENT -> content.finish();
            case CALL -> endInsideCall();
            default -> {
            }
        }
    }

    @Override
    void callEnded() {
        if (inList) {
            mode = Mode.LIST_AFTER_CALL;
        } else {
            endRegion();
        }
    }

    @Override
    void regionEnded() {
        mode = Mode.CONTENT;
        content.afterCalls();
    }
}
