package dev.inferd.speech.audio;

/** An upload that gives no usable audio: the server answers 400 with {@link #getMessage()}. */
public final class InvalidAudioException extends RuntimeException {

    /** Why the upload was refused. */
    public enum Reason { UNDECODABLE, NO_AUDIO_STREAM, EMPTY, TOO_LONG }

    private final Reason reason;

    public InvalidAudioException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() { return reason; }
}
