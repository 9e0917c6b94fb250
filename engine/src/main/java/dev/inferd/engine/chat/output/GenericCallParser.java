package dev.inferd.engine.chat.output;

import java.util.regex.Pattern;

/**
 * Calls of templates without a call syntax of their own: the reply is only
 * {@code {"tool_calls": [{"name": "f", "arguments": {...}}, ...]}} (as the generic tool prompt asks),
 * or a bare {@code {"name": "f", "arguments": {...}}}, either possibly inside a Markdown code block.
 */
final class GenericCallParser extends JsonReplyParser {

    private enum Mode { START, CONTENT, LIST_EXPECT_CALL, LIST_AFTER_CALL, LIST_CLOSE_WRAPPER, CALL, FENCE_CLOSE }

    private Mode mode = Mode.START;
    private final MarkedContent content;
    private boolean inList;

    GenericCallParser(OutputListener listener) {
        super(listener, JsonReplyProbe.NAMED_CALL, JsonReplyProbe.CALL_LIST);
        this.content = new MarkedContent(null, out);
    }

    @Override
    void toContent() {
        mode = Mode.CONTENT;
    }

    @Override
    void replyOpened(Pattern opening, String text) {
        if (opening == JsonReplyProbe.CALL_LIST) {
            inList = true;
            mode = Mode.LIST_EXPECT_CALL;
        } else {
            mode = Mode.CALL;
            beginCallObject(text).beginValueOf("name");
        }
    }

    @Override
    void step(char c) {
        switch (mode) {
            case START -> probeChar(c);
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
            case FENCE_CLOSE -> fenceCloseChar(c);
        }
    }

    @Override
    void end() {
        switch (mode) {
            case START -> endWhileProbing();
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
        mode = takeFenced() ? Mode.FENCE_CLOSE : Mode.CONTENT;
        inList = false;
        content.afterCalls();
    }
}
