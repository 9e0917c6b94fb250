package dev.inferd.engine.generate;

import java.util.List;

/**
 * What a {@link Generation} reports, in order. For each choice: {@link Text} pieces, then one
 * {@link Finish}; after every choice finished (or the generation was cancelled), one {@link End}.
 */
public sealed interface GenerationEvent {

    /**
     * New text of a choice. Text is released only once it can no longer turn out to be part of a stop
     * sequence and once it ends on a whole UTF-8 character, so the pieces of a choice concatenated are
     * exactly its final text.
     *
     * @param text never null; empty when only log-probabilities are delivered
     * @param tokens the tokens this text came from, with their log-probabilities, when those were asked
     *               for; else empty
     */
    record Text(int choice, String text, List<TokenLogprob> tokens) implements GenerationEvent {
        public Text {
            tokens = List.copyOf(tokens);
        }
    }

    /**
     * A choice has ended; no more {@link Text} for it follows.
     *
     * @param stopSequence the request's stop sequence that ended it (its text is never released), or null
     */
    record Finish(int choice, FinishReason reason, String stopSequence) implements GenerationEvent {
        public Finish(int choice, FinishReason reason) {
            this(choice, reason, null);
        }
    }

    /** The last event: the generation is over, finished or cancelled, with its token counts. */
    record End(GenerationResult result) implements GenerationEvent {
    }
}
