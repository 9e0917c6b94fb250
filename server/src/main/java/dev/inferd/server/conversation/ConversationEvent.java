package dev.inferd.server.conversation;

import dev.inferd.engine.generate.TokenLogprob;
import dev.inferd.server.openai.Usage;

import java.util.List;

/**
 * What a conversation run yields, in order, already split into channels: protocol writers turn
 * these into their wire events and never see the template's markers. Per choice: deltas and call
 * events as the output grows, then {@link ChoiceFinished}; after every choice, {@link Completed}.
 */
public sealed interface ConversationEvent {

    /**
     * Text for the user.
     *
     * @param logprobs the log-probabilities of the generated text this delta came from (empty unless asked
     *                 for; they ride the first delta of that text)
     */
    record ContentDelta(int choice, String text, List<TokenLogprob> logprobs) implements ConversationEvent {
    }

    /** Thinking text. */
    record ReasoningDelta(int choice, String text) implements ConversationEvent {
    }

    /** A call's function is known; its arguments follow. */
    record ToolCallStarted(int choice, int index, String id, String name) implements ConversationEvent {
    }

    /** The next piece of a call's arguments (JSON text). */
    record ToolCallArguments(int choice, int index, String fragment) implements ConversationEvent {
    }

    /** A call is over (at the choice's end, in index order): its whole arguments. */
    record ToolCallDone(int choice, ToolCallOutput call) implements ConversationEvent {
    }

    /** Log-probabilities of generated text that gave no content delta (it went to reasoning or a call, or is held back). */
    record Logprobs(int choice, List<TokenLogprob> logprobs) implements ConversationEvent {
    }

    /** A choice ended; {@code output} is all of it. */
    record ChoiceFinished(int choice, ChoiceOutput output) implements ConversationEvent {
    }

    /** Every choice ended; the token counts of the whole run. */
    record Completed(Usage usage) implements ConversationEvent {
    }
}
