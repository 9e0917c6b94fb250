package dev.inferd.engine.generate;

/** Why a choice ended. */
public enum FinishReason {
    /** End-of-generation token or a stop string. */
    STOP("stop"),
    /** max_tokens or the context limit reached. */
    LENGTH("length");

    private final String wireName;

    FinishReason(String wireName) {
        this.wireName = wireName;
    }

    /** The OpenAI {@code finish_reason} value. */
    public String wireName() {
        return wireName;
    }
}
