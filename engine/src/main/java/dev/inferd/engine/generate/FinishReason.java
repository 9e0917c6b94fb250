package dev.inferd.engine.generate;

/** Why a choice ended. */
public enum FinishReason {
    /** End-of-generation token or a stop sequence. */
    STOP,
    /** The request's token limit or the context limit reached. */
    LENGTH
}
