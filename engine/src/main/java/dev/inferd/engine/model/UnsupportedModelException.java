package dev.inferd.engine.model;

/** A GGUF file that is valid but describes a model this engine cannot run (architecture, shape, option). */
public class UnsupportedModelException extends RuntimeException {
    public UnsupportedModelException(String message) {
        super(message);
    }
}
