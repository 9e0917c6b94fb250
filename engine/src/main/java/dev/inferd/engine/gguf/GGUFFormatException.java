package dev.inferd.engine.gguf;

/** A file that is not valid GGUF, or uses something this reader does not know. */
public class GGUFFormatException extends RuntimeException {
    public GGUFFormatException(String message) {
        super(message);
    }
}
