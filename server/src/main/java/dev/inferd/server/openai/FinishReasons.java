package dev.inferd.server.openai;

import dev.inferd.engine.generate.FinishReason;

/** The engine's reasons for ending a choice as OpenAI's {@code finish_reason} values. */
public final class FinishReasons {

    private FinishReasons() {
    }

    public static String wireName(FinishReason reason) {
        return switch (reason) {
            case STOP -> "stop";
            case LENGTH -> "length";
        };
    }
}
