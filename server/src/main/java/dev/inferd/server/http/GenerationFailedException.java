package dev.inferd.server.http;

/** The engine's {@code generate} threw: a server fault, reported as a 500 or a stream error event. */
final class GenerationFailedException extends RuntimeException {

    GenerationFailedException(Throwable cause) {
        super("generation failed: " + cause, cause);
    }
}
