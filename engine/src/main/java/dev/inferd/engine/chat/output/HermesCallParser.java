package dev.inferd.engine.chat.output;

/**
 * Hermes, Qwen2.5 and Qwen3 calls: {@code <tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>},
 * one block per call, possibly after some text.
 */
final class HermesCallParser extends CallSyntaxParser {
    private static final String CLOSE = "</tool_call>";

    private enum Mode { CONTENT, CALL, CLOSE_TAG }

    private Mode mode = Mode.CONTENT;
    private final MarkedContent content;
    private final ExpectedText closeTag = new ExpectedText(CLOSE);

    HermesCallParser(OutputListener listener) {
        super(listener);
        this.content = new MarkedContent(ToolCallFormat.HERMES.openingMarker(), out);
    }

    @Override
    void step(char c) {
        switch (mode) {
            case CONTENT -> {
                if (content.accept(c)) {
                    out.openRegion("");
                    mode = Mode.CALL;
                    beginCallObject();
                }
            }
            case CALL -> callChar(c);
            case CLOSE_TAG -> {
                switch (closeTag.accept(c)) {
                    case WAITING -> {
                    }
                    case MATCHED -> endRegion();
                    case MISMATCHED -> {
                        // No closing tag: what follows is content again.
                        String rest = closeTag.takeHeld();
                        endRegion();
                        replay(rest);
                    }
                }
            }
        }
    }

    @Override
    void end() {
        switch (mode) {
            case CONTENT -> content.finish();
            case CALL -> endInsideCall();
            case CLOSE_TAG -> closeTag.clear();
        }
    }

    @Override
    void callEnded() {
        mode = Mode.CLOSE_TAG;
    }

    @Override
    void regionEnded() {
        mode = Mode.CONTENT;
        content.afterCalls();
    }
}
