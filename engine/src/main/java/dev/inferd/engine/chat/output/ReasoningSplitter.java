package dev.inferd.engine.chat.output;

import java.util.function.Consumer;

/**
 * Splits output into thinking ({@code <think>...</think>}) and the rest, piece by piece. The block
 * is recognised at the start of the output only (where Qwen3 and DeepSeek-R1 write it), or is
 * already open when the prompt opened it. Tags split across pieces are held back until they are
 * whole; they never reach either channel. Whitespace around the thinking (after {@code <think>},
 * before and after {@code </think>}) is dropped. Output that ends inside the block is all reasoning.
 */
final class ReasoningSplitter {
    static final String OPEN = "<think>";
    static final String CLOSE = "</think>";

    private enum State { OPENING, THINKING_START, THINKING, AFTER_THINKING, CONTENT }

    private final OutputListener listener;
    private final Consumer<String> content;
    private State state;
    private final StringBuilder held = new StringBuilder();
    private final StringBuilder trailingWhitespace = new StringBuilder();
    private final StringBuilder reasoningOut = new StringBuilder();
    private final StringBuilder contentOut = new StringBuilder();

    /**
     * @param startsInside the prompt ended inside an open block
     * @param content where non-reasoning text goes
     */
    ReasoningSplitter(boolean startsInside, OutputListener listener, Consumer<String> content) {
        this.listener = listener;
        this.content = content;
        this.state = startsInside ? State.THINKING_START : State.OPENING;
    }

    boolean inReasoning() {
        return state == State.THINKING_START || state == State.THINKING;
    }

    void accept(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (state == State.CONTENT) {
                contentOut.append(text, i, text.length());
                break;
            }
            step(text.charAt(i));
        }
        flush();
    }

    void finish() {
        switch (state) {
            case OPENING -> contentOut.append(held);
            case THINKING, THINKING_START -> {
                for (int i = 0; i < held.length(); i++) {
                    reasoningChar(held.charAt(i));
                }
            }
            default -> {
            }
        }
        held.setLength(0);
        flush();
    }

    private void step(char c) {
        switch (state) {
            case OPENING -> {
                held.append(c);
                String t = held.toString().stripLeading();
                if (t.isEmpty() || (OPEN.startsWith(t) && t.length() < OPEN.length())) {
                    return;
                }
                if (t.equals(OPEN)) {
                    held.setLength(0);
                    state = State.THINKING_START;
                } else {
                    contentOut.append(held);
                    held.setLength(0);
                    state = State.CONTENT;
                }
            }
            case THINKING_START -> {
                // A model may still write the <think> its prompt already opened.
                if (held.isEmpty() && Character.isWhitespace(c)) {
                    return;
                }
                held.append(c);
                if (Markers.isPrefix(held, OPEN)) {
                    if (held.length() == OPEN.length()) {
                        held.setLength(0);
                    }
                    return;
                }
                String text = held.toString();
                held.setLength(0);
                state = State.THINKING;
                for (int i = 0; i < text.length(); i++) {
                    step(text.charAt(i));
                }
            }
            case THINKING -> {
                held.append(c);
                while (!held.isEmpty() && !Markers.isPrefix(held, CLOSE)) {
                    reasoningChar(held.charAt(0));
                    held.deleteCharAt(0);
                }
                if (held.length() == CLOSE.length()) {
                    held.setLength(0);
                    trailingWhitespace.setLength(0);
                    flush();
                    state = State.AFTER_THINKING;
                }
            }
            case AFTER_THINKING -> {
                if (!Character.isWhitespace(c)) {
                    state = State.CONTENT;
                    contentOut.append(c);
                }
            }
            case CONTENT -> contentOut.append(c);
        }
    }

    private void reasoningChar(char c) {
        if (Character.isWhitespace(c)) {
            trailingWhitespace.append(c);
        } else {
            reasoningOut.append(trailingWhitespace).append(c);
            trailingWhitespace.setLength(0);
        }
    }

    private void flush() {
        if (!reasoningOut.isEmpty()) {
            listener.reasoning(reasoningOut.toString());
            reasoningOut.setLength(0);
        }
        if (!contentOut.isEmpty()) {
            content.accept(contentOut.toString());
            contentOut.setLength(0);
        }
    }
}
