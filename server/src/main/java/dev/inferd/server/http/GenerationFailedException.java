package dev.inferd.server.http;

/** The engine broke a generation: a server fault, reported as a 500 or a stream error event. */
final class GenerationFailedException extends RuntimeException {

    GenerationFailedException(Throwable cause) {
        super("generation failed: " + cause, cause);
    }
}
