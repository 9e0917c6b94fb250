package dev.inferd.engine.chat.output;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * For syntaxes that recognise a call as a reply that starts with JSON: reads the reply's start until
 * it is a call's opening or is not. Small models often put the JSON in a Markdown code block; the
 * fence is not content either.
 */
final class JsonReplyProbe {
    private static final String FENCE = "(?:```[A-Za-z]*\\s*)?";
    /** {@code {"name": ...}} */
    static final Pattern NAMED_CALL = Pattern.compile(FENCE + "\\{\\s*\"name\"");
    /** {@code {"type": "function", ...}} */
    static final Pattern TYPED_CALL = Pattern.compile(FENCE + "\\{\\s*\"type\"\\s*:\\s*\"function\"\\s*,");
    /** {@code {"tool_calls": [...]}} */
    static final Pattern CALL_LIST = Pattern.compile(FENCE + "\\{\\s*\"tool_calls\"\\s*:\\s*\\[");

    enum Step {
        /** Not decided yet. */
        WAITING,
        /** The reply does not start with {@code {} or a fence: this character is ordinary output. */
        PLAIN,
        /** The reply started like JSON but is not a call: {@link #takeText()} is content. */
        NOT_A_CALL,
        /** The reply opens as a call: {@link #opening()} says which form, {@link #takeText()} what was read. */
        OPENED
    }

    private final Pattern[] forms;
    private final StringBuilder held = new StringBuilder();
    private Pattern opening;

    JsonReplyProbe(Pattern... forms) {
        this.forms = forms;
    }

    Step accept(char c) {
        if (held.isEmpty()) {
            if (Character.isWhitespace(c)) {
                return Step.WAITING;
            }
            if (c != '{' && c != '`') {
                return Step.PLAIN;
            }
            held.append(c);
            return Step.WAITING;
        }
        held.append(c);
        boolean waiting = false;
        for (Pattern p : forms) {
            Matcher m = p.matcher(held);
            if (m.lookingAt()) {
                opening = p;
                return Step.OPENED;
            }
            waiting |= m.hitEnd();
        }
        return waiting ? Step.WAITING : Step.NOT_A_CALL;
    }

    /** The form the reply opened with. */
    Pattern opening() {
        return opening;
    }

    /** Whether the call is inside a Markdown code block. */
    boolean fenced() {
        return !held.isEmpty() && held.charAt(0) == '`';
    }

    String takeText() {
        String s = held.toString();
        held.setLength(0);
        return s;
    }
}
