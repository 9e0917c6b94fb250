package dev.inferd.engine.chat.output;

/**
 * Receives a model's output split into its channels, in output order, as it is generated. Each
 * method gets only new text; concatenating what one method received gives that channel's text.
 */
public interface OutputListener {
    OutputListener NONE = new OutputListener() {
    };

    /** Text for the user ({@code content}). */
    default void content(String text) {
    }

    /** Thinking text ({@code reasoning_content}). */
    default void reasoning(String text) {
    }

    /**
     * A tool call's function is known. Calls are numbered from 0 in output order; this comes before
     * any of the call's arguments.
     */
    default void toolCallStarted(int index, String name) {
    }

    /** The next piece of call {@code index}'s arguments (JSON text). */
    default void toolCallArguments(int index, String fragment) {
    }
}
