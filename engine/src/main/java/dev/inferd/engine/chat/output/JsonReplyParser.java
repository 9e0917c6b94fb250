package dev.inferd.engine.chat.output;

import java.util.regex.Pattern;

/**
 * A syntax whose calls may be the whole reply written as JSON, possibly in a Markdown code block: the
 * reply's start is probed before any of it reaches the content, and the code block's closing fence after
 * the calls is dropped. A subclass says what follows the opening and where content goes.
 */
abstract sealed class JsonReplyParser extends CallSyntaxParser permits GenericCallParser, Llama3CallParser {

    private final JsonReplyProbe probe;
    private final ExpectedText fenceClose = new ExpectedText("```");
    private boolean fenced;

    /** @param openings the JSON forms ({@link JsonReplyProbe}'s patterns) that open a call */
    JsonReplyParser(OutputListener listener, Pattern... openings) {
        super(listener);
        this.probe = new JsonReplyProbe(openings);
    }

    /** The reply turned out to be content, or the calls and their fence are over. */
    abstract void toContent();

    /** The reply opened as a call in the form {@code opening}; {@code text} (already in the open region) is what was read. */
    abstract void replyOpened(Pattern opening, String text);

    /** Reads a character of the reply's start. */
    final void probeChar(char c) {
        switch (probe.accept(c)) {
            case WAITING -> {
            }
            case PLAIN -> {
                toContent();
                step(c);
            }
            case NOT_A_CALL -> {
                toContent();
                out.content(probe.takeText());
            }
            case OPENED -> {
                fenced = probe.fenced();
                String text = probe.takeText();
                out.openRegion(text);
                replyOpened(probe.opening(), text);
            }
        }
    }

    /** The output ended while the reply's start was undecided: what was read is content. */
    final void endWhileProbing() {
        out.content(probe.takeText());
    }

    /** Reads a character after fenced calls: the closing fence is dropped, anything else is content. */
    final void fenceCloseChar(char c) {
        switch (fenceClose.accept(c)) {
            case WAITING -> {
            }
            case MATCHED -> toContent();
            case MISMATCHED -> {
                toContent();
                replay(fenceClose.takeHeld());
            }
        }
    }

    /** Whether the calls just ended were in a code block, so that its closing fence comes next; clears it. */
    final boolean takeFenced() {
        boolean wasFenced = fenced;
        fenced = false;
        return wasFenced;
    }
}
