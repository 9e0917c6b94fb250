package dev.inferd.engine.chat.output;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Llama 3.1/3.2/3.3 calls: a reply that is {@code {"name": "f", "parameters": {...}}} (several separated
 * by {@code ;}, possibly in a Markdown code block), or {@code <|python_tag|>} followed by such an object,
 * by {@code f.call(key="value", ...)} for a built-in tool, or by Python code (a call of {@code python}
 * with arguments {@code {"code": "..."}}).
 */
final class Llama3CallParser extends JsonReplyParser {
    private static final Pattern BUILTIN_CALL = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)\\.call\\(");

    private enum Mode {
        START, CONTENT, CALL, AFTER_JSON_CALL, AFTER_SEMICOLON, AFTER_TAG, PY_HEAD, PY_BUILTIN, PY_CODE, FENCE_CLOSE
    }

    private Mode mode = Mode.START;
    private final MarkedContent content;
    private final StringBuilder held = new StringBuilder();
    private boolean pythonQuote;
    private char pythonQuoteChar;

    Llama3CallParser(OutputListener listener) {
        super(listener, JsonReplyProbe.NAMED_CALL, JsonReplyProbe.TYPED_CALL);
        this.content = new MarkedContent(ToolCallFormat.LLAMA3.openingMarker(), out);
    }

    @Override
    void toContent() {
        mode = Mode.CONTENT;
    }

    @Override
    void replyOpened(Pattern opening, String text) {
        mode = Mode.CALL;
        JsonCallObject call = beginCallObject(text);
        if (opening == JsonReplyProbe.NAMED_CALL) {
            call.beginValueOf("name");
        } else {
            call.state = JsonCallObject.State.KEY_START;
        }
    }

    @Override
    void step(char c) {
        switch (mode) {
            case START -> probeChar(c);
            case CONTENT -> {
                if (content.accept(c)) {
                    out.openRegion("");
                    mode = Mode.AFTER_TAG;
                }
            }
            case CALL -> callChar(c);
            case AFTER_JSON_CALL -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                if (c == ';') {
                    mode = Mode.AFTER_SEMICOLON;
                } else {
                    endRegion();
                    step(c);
                }
            }
            case AFTER_SEMICOLON -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                callFrom(c);
            }
            case AFTER_TAG -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                if (c == '{') {
                    callFrom(c);
                } else {
                    mode = Mode.PY_HEAD;
                    step(c);
                }
            }
            case PY_HEAD -> pythonHead(c);
            case PY_BUILTIN -> builtinArgument(c);
            case PY_CODE -> out.escapedArgument(c);
            case FENCE_CLOSE -> fenceCloseChar(c);
        }
    }

    private void callFrom(char c) {
        mode = Mode.CALL;
        beginCallObject();
        callChar(c);
    }

    /** After the tag: {@code f.call(} is a built-in tool's call, anything else is Python code. */
    private void pythonHead(char c) {
        held.append(c);
        Matcher m = BUILTIN_CALL.matcher(held);
        if (m.lookingAt()) {
            String function = m.group(1);
            held.setLength(0);
            out.startCall(function);
            mode = Mode.PY_BUILTIN;
        } else if (!m.hitEnd()) {
            startCode();
            held.setLength(0);
            mode = Mode.PY_CODE;
        }
    }

    private void startCode() {
        out.startCall("python");
        out.arguments("{\"code\": \"");
        out.escapedArguments(held);
    }

    /** A built-in call's keyword arguments, up to the closing parenthesis outside a string. */
    private void builtinArgument(char c) {
        if (pythonQuote) {
            if (c == pythonQuoteChar && (held.isEmpty() || held.charAt(held.length() - 1) != '\\')) {
                pythonQuote = false;
            }
            held.append(c);
        } else if (c == '"' || c == '\'') {
            pythonQuote = true;
            pythonQuoteChar = c;
            held.append(c);
        } else if (c == ')') {
            out.arguments(PythonCallArguments.toJson(held.toString()));
            held.setLength(0);
            endRegion();
        } else {
            held.append(c);
        }
    }

    @Override
    void end() {
        switch (mode) {
            case START -> endWhileProbing();
            case CONTENT -> content.finish();
            case CALL -> endInsideCall();
            case PY_HEAD -> {
                startCode();
                out.arguments("\"}");
            }
            case PY_BUILTIN -> out.markIncomplete(out.openIndex());
            case PY_CODE -> out.arguments("\"}");
            default -> {
            }
        }
        held.setLength(0);
    }

    @Override
    void callEnded() {
        mode = Mode.AFTER_JSON_CALL;
    }

    @Override
    void regionEnded() {
        mode = takeFenced() ? Mode.FENCE_CLOSE : Mode.CONTENT;
        content.afterCalls();
    }
}
