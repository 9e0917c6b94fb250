package dev.inferd.engine.chat.output;

/**
 * Calls of templates without a call syntax of their own: the reply is only
 * {@code {"tool_calls": [{"name": "f", "arguments": {...}}, ...]}} (as the generic tool prompt asks),
 * or a bare {@code {"name": "f", "arguments": {...}}}, either possibly inside a Markdown code block.
 */
final class GenericCallParser extends CallSyntaxParser {

    private enum Mode { START, CONTENT, LIST_EXPECT_CALL, LIST_AFTER_CALL, LIST_CLOSE_WRAPPER, CALL, FENCE_CLOSE }

    private Mode mode = Mode.START;
    private final JsonReplyProbe probe = new JsonReplyProbe(JsonReplyProbe.NAMED_CALL, JsonReplyProbe.CALL_LIST);
    private final MarkedContent content;
    private final ExpectedText fenceClose = new ExpectedText("```");
    private boolean inList;
    private boolean fenced;

    GenericCallParser(OutputListener listener) {
        super(listener);
        this.content = new MarkedContent(null, out);
    }

    @Override
    void step(char c) {
        switch (mode) {
            case START -> {
                switch (probe.accept(c)) {
                    case WAITING -> {
                    }
                    case PLAIN -> {
                        mode = Mode.CONTENT;
                        step(c);
                    }
                    case NOT_A_CALL -> {
                        mode = Mode.CONTENT;
                        out.content(probe.takeText());
                    }
                    case OPENED -> {
                        fenced = probe.fenced();
                        String text = probe.takeText();
                        out.openRegion(text);
                        if (probe.opening() == JsonReplyProbe.CALL_LIST) {
                            inList = true;
                            mode = Mode.LIST_EXPECT_CALL;
                        } else {
                            mode = Mode.CALL;
                            beginCallObject(text).beginValueOf("name");
                        }
                    }
                }
            }
            case CONTENT -> content.accept(c);
            case LIST_EXPECT_CALL -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                if (c == ']') {
                    mode = Mode.LIST_CLOSE_WRAPPER;
                } else {
                    mode = Mode.CALL;
                    beginCallObject();
                    callChar(c);
                }
            }
            case LIST_AFTER_CALL -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                if (c == ',') {
                    mode = Mode.LIST_EXPECT_CALL;
                } else if (c == ']') {
                    mode = Mode.LIST_CLOSE_WRAPPER;
                } else {
                    endRegion();
                    step(c);
                }
            }
            case LIST_CLOSE_WRAPPER -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                endRegion();
                if (c != '}') {
                    step(c);
                }
            }
            case CALL -> callChar(c);
            case FENCE_CLOSE -> {
                switch (fenceClose.accept(c)) {
                    case WAITING -> {
                    }
                    case MATCHED -> mode = Mode.CONTENT;
                    case MISMATCHED -> {
                        mode = Mode.CONTENT;
                        String rest = fenceClose.takeHeld();
                        for (int i = 0; i < rest.length(); i++) {
                            step(rest.charAt(i));
                        }
                    }
                }
            }
        }
    }

    @Override
    void end() {
        switch (mode) {
            case START -> out.content(probe.takeText());
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
        mode = fenced ? Mode.FENCE_CLOSE : Mode.CONTENT;
        fenced = false;
        inList = false;
        content.afterCalls();
    }
}
