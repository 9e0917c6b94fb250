package dev.inferd.speech.whisper;

/** A file that is not a readable whisper.cpp model. */
public final class WhisperFormatException extends RuntimeException {
    public WhisperFormatException(String message) {
        super(message);
    }
}
