package dev.inferd.engine.chat.output;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Separates tool calls from content in text fed piece by piece, for one {@link ToolCallFormat}.
 * A call's name is reported as soon as its string is complete, then its arguments as they are
 * generated: the fragments are the arguments' JSON text exactly as written (decoded, when a model
 * writes the arguments as a JSON string). Opening and closing markers, and whitespace between calls,
 * never reach the content. Text that looked like a call but is not one (malformed before the
 * function's name is known) goes to the content, without its marker.
 */
final class ToolCallParser {
    // A reply that is a call, for formats that recognise calls only at the start of the output. Small
    // models often put the JSON in a Markdown code block; the fence is not content either.
    private static final String FENCE = "(?:```[A-Za-z]*\\s*)?";
    private static final Pattern NAMED_CALL = Pattern.compile(FENCE + "\\{\\s*\"name\"");
    private static final Pattern TYPED_CALL = Pattern.compile(FENCE + "\\{\\s*\"type\"\\s*:\\s*\"function\"\\s*,");
    private static final Pattern CALL_LIST = Pattern.compile(FENCE + "\\{\\s*\"tool_calls\"\\s*:\\s*\\[");
    private static final String FENCE_CLOSE = "```";
    private static final Pattern BUILTIN_CALL = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)\\.call\\(");
    private static final String HERMES_CLOSE = "</tool_call>";

    private enum Mode {
        START, PROBE, CONTENT, MARKER_OPENED, LIST_EXPECT_CALL, LIST_AFTER_CALL, LIST_CLOSE_WRAPPER,
        CALL, CLOSE_TAG, AFTER_JSON_CALL, PY_START, PY_HEAD, PY_BUILTIN, PY_CODE, FENCE_CLOSE
    }

    private enum Kind { NONE, CONTENT, ARGUMENTS }

    private final ToolCallFormat format;
    private final String marker;
    private final OutputListener listener;
    private Mode mode;
    private final StringBuilder held = new StringBuilder();
    /** Whitespace is dropped at the start of the content and after calls (it would only separate calls). */
    private boolean dropWhitespace = true;
    private StringBuilder region;
    private boolean generic;
    private boolean fenced;
    private CallObject call;
    private int calls;
    private int openIndex = -1;
    private String openName;
    private int incomplete = -1;
    private boolean pythonQuote;
    private char pythonQuoteChar;

    private Kind outKind = Kind.NONE;
    private int outIndex;
    private final StringBuilder out = new StringBuilder();

    ToolCallParser(ToolCallFormat format, OutputListener listener) {
        this.format = format;
        this.marker = format.openingMarker();
        this.listener = listener;
        this.mode = format == ToolCallFormat.LLAMA3 || format == ToolCallFormat.GENERIC ? Mode.START : Mode.CONTENT;
    }

    OpenCall openCall() {
        if (region == null) {
            return null;
        }
        return new OpenCall(openIndex >= 0 ? openIndex : calls, openName, region.toString());
    }

    /** The call the output ended inside, or -1. */
    int incompleteCall() {
        return incomplete;
    }

    void accept(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (region != null) {
                region.append(c);
            }
            step(c);
        }
        flush();
    }

    void finish() {
        switch (mode) {
            case START, PROBE, CONTENT -> {
                if (!dropWhitespace || !held.toString().isBlank()) {
                    content(held);
                }
            }
            case CALL -> {
                if (call.name == null) {
                    content(call.raw);
                } else {
                    incomplete = call.index;
                }
            }
            case PY_HEAD -> {
                startCall("python");
                arguments("{\"code\": \"");
                escapeInto(held);
                arguments("\"}");
            }
            case PY_BUILTIN -> incomplete = openIndex;
            case PY_CODE -> arguments("\"}");
            default -> {
            }
        }
        held.setLength(0);
        flush();
    }

    private void step(char c) {
        switch (mode) {
            case START -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                if (c == '{' || c == '`') {
                    held.append(c);
                    mode = Mode.PROBE;
                } else {
                    mode = Mode.CONTENT;
                    step(c);
                }
            }
            case PROBE -> probe(c);
            case CONTENT -> contentChar(c);
            case MARKER_OPENED -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                if (c == '[') {
                    mode = Mode.LIST_EXPECT_CALL;
                } else {
                    mode = Mode.CALL;
                    call = new CallObject();
                    callStep(c);
                }
            }
            case LIST_EXPECT_CALL -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                if (c == ']') {
                    afterList();
                } else {
                    mode = Mode.CALL;
                    call = new CallObject();
                    callStep(c);
                }
            }
            case LIST_AFTER_CALL -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                if (c == ',') {
                    mode = Mode.LIST_EXPECT_CALL;
                } else if (c == ']') {
                    afterList();
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
            case CALL -> callStep(c);
            case CLOSE_TAG -> {
                if (held.isEmpty() && Character.isWhitespace(c)) {
                    return;
                }
                held.append(c);
                if (!Markers.isPrefix(held, HERMES_CLOSE)) {
                    // No closing tag: what follows is content again.
                    String rest = held.toString();
                    held.setLength(0);
                    endRegion();
                    for (int i = 0; i < rest.length(); i++) {
                        step(rest.charAt(i));
                    }
                } else if (held.length() == HERMES_CLOSE.length()) {
                    held.setLength(0);
                    endRegion();
                }
            }
            case AFTER_JSON_CALL -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                if (c == ';') {
                    mode = Mode.MARKER_OPENED;
                } else {
                    endRegion();
                    step(c);
                }
            }
            case PY_START -> {
                if (Character.isWhitespace(c)) {
                    return;
                }
                if (c == '{') {
                    mode = Mode.CALL;
                    call = new CallObject();
                    callStep(c);
                } else {
                    mode = Mode.PY_HEAD;
                    step(c);
                }
            }
            case PY_HEAD -> {
                held.append(c);
                Matcher m = BUILTIN_CALL.matcher(held);
                if (m.lookingAt()) {
                    String function = m.group(1);
                    held.setLength(0);
                    startCall(function);
                    mode = Mode.PY_BUILTIN;
                } else if (!m.hitEnd()) {
                    startCall("python");
                    arguments("{\"code\": \"");
                    escapeInto(held);
                    held.setLength(0);
                    mode = Mode.PY_CODE;
                }
            }
            case PY_BUILTIN -> {
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
                    arguments(PythonCallArguments.toJson(held.toString()));
                    held.setLength(0);
                    endRegion();
                } else {
                    held.append(c);
                }
            }
            case PY_CODE -> escapeInto(c);
            case FENCE_CLOSE -> {
                if (held.isEmpty() && Character.isWhitespace(c)) {
                    return;
                }
                held.append(c);
                if (!Markers.isPrefix(held, FENCE_CLOSE)) {
                    String rest = held.toString();
                    held.setLength(0);
                    mode = Mode.CONTENT;
                    for (int i = 0; i < rest.length(); i++) {
                        step(rest.charAt(i));
                    }
                } else if (held.length() == FENCE_CLOSE.length()) {
                    held.setLength(0);
                    mode = Mode.CONTENT;
                }
            }
        }
    }

    private void contentChar(char c) {
        if (dropWhitespace) {
            if (Character.isWhitespace(c) && held.isEmpty()) {
                return;
            }
        }
        if (marker == null) {
            dropWhitespace = false;
            appendContent(c);
            return;
        }
        held.append(c);
        while (!held.isEmpty() && !Markers.isPrefix(held, marker)) {
            // Whitespace between calls is dropped, other text is content.
            if (dropWhitespace && Character.isWhitespace(held.charAt(0))) {
                held.deleteCharAt(0);
                continue;
            }
            dropWhitespace = false;
            appendContent(held.charAt(0));
            held.deleteCharAt(0);
        }
        if (held.length() == marker.length()) {
            held.setLength(0);
            region = new StringBuilder();
            generic = false;
            mode = format == ToolCallFormat.LLAMA3 ? Mode.PY_START
                    : format == ToolCallFormat.MISTRAL ? Mode.MARKER_OPENED : Mode.CALL;
            if (mode == Mode.CALL) {
                call = new CallObject();
            }
        }
    }

    private void probe(char c) {
        held.append(c);
        boolean waiting = false;
        for (Pattern p : format == ToolCallFormat.GENERIC
                ? new Pattern[] {NAMED_CALL, CALL_LIST} : new Pattern[] {NAMED_CALL, TYPED_CALL}) {
            Matcher m = p.matcher(held);
            if (m.lookingAt()) {
                region = new StringBuilder(held);
                generic = p == CALL_LIST;
                fenced = held.charAt(0) == '`';
                if (p == CALL_LIST) {
                    mode = Mode.LIST_EXPECT_CALL;
                } else {
                    mode = Mode.CALL;
                    call = new CallObject();
                    call.raw.append(held);
                    if (p == NAMED_CALL) {
                        call.beginValueOf("name");
                    } else {
                        call.state = CallObject.State.KEY_START;
                    }
                }
                held.setLength(0);
                return;
            }
            waiting |= m.hitEnd();
        }
        if (!waiting) {
            mode = Mode.CONTENT;
            String text = held.toString();
            held.setLength(0);
            for (int i = 0; i < text.length(); i++) {
                appendContent(text.charAt(i));
            }
        }
    }

    private void callStep(char c) {
        switch (call.feed(c)) {
            case MORE -> {
            }
            case DONE -> {
                if (call.name == null) {
                    failCall(null);
                    return;
                }
                call = null;
                openName = null;
                openIndex = -1;
                if (format == ToolCallFormat.HERMES) {
                    mode = Mode.CLOSE_TAG;
                } else if (format == ToolCallFormat.LLAMA3) {
                    mode = Mode.AFTER_JSON_CALL;
                } else if (region != null && isList()) {
                    mode = Mode.LIST_AFTER_CALL;
                } else {
                    endRegion();
                }
            }
            case INVALID -> failCall(c);
        }
    }

    /** Whether the current region is a JSON list of calls (Mistral's {@code [...]}, the generic {@code "tool_calls": [...]}). */
    private boolean isList() {
        String r = region.toString().stripLeading();
        return generic || r.startsWith("[");
    }

    private void failCall(Character c) {
        CallObject failed = call;
        call = null;
        endRegion();
        if (failed.name == null) {
            for (int i = 0; i < failed.raw.length(); i++) {
                appendContent(failed.raw.charAt(i));
            }
        }
        if (c != null) {
            step(c);
        }
    }

    private void afterList() {
        if (generic) {
            mode = Mode.LIST_CLOSE_WRAPPER;
        } else {
            endRegion();
        }
    }

    private void endRegion() {
        region = null;
        openName = null;
        openIndex = -1;
        mode = fenced ? Mode.FENCE_CLOSE : Mode.CONTENT;
        fenced = false;
        dropWhitespace = true;
    }

    private int startCall(String name) {
        int index = calls++;
        openIndex = index;
        openName = name;
        flush();
        listener.toolCallStarted(index, name);
        return index;
    }

    // ---- output batching: consecutive text of one kind goes out as one piece per fed piece ----

    private void appendContent(char c) {
        if (outKind != Kind.CONTENT) {
            flush();
            outKind = Kind.CONTENT;
        }
        out.append(c);
    }

    private void content(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            appendContent(s.charAt(i));
        }
    }

    private void arguments(CharSequence s) {
        if (outKind != Kind.ARGUMENTS || outIndex != openIndex) {
            flush();
            outKind = Kind.ARGUMENTS;
            outIndex = openIndex;
        }
        out.append(s);
    }

    private void argumentChar(int index, char c) {
        if (outKind != Kind.ARGUMENTS || outIndex != index) {
            flush();
            outKind = Kind.ARGUMENTS;
            outIndex = index;
        }
        out.append(c);
    }

    private void escapeInto(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            escapeInto(s.charAt(i));
        }
    }

    private void escapeInto(char c) {
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
                    argumentChar(openIndex, c);
                }
            }
        }
    }

    private void flush() {
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

    /**
     * One call object, {@code {"name": ..., "arguments": ...}} with keys in any order and others
     * ignored. Arguments met before the name wait for it.
     */
    private final class CallObject {
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
                        index = startCall(name);
                        if (argumentsBeforeName != null) {
                            arguments(argumentsBeforeName);
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
                argumentChar(index, c);
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
}
