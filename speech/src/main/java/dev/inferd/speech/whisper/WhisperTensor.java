package dev.inferd.speech.whisper;

import dev.inferd.engine.gguf.GGMLType;

/** A tensor of a whisper.cpp model file: ggml dims ({@code ne[0]} the row length) and where its data starts in the file. */
public record WhisperTensor(String name, GGMLType type, long[] ne, long offset) {

    public long elements() {
        long n = 1;
        for (long d : ne) n *= d;
        return n;
    }

    public long byteSize() {
        return type.bytesFor(elements());
    }

    /** Row length. */
    public int cols() {
        return Math.toIntExact(ne[0]);
    }

    /** Rows: every dimension after the first. */
    public int rows() {
        return Math.toIntExact(elements() / ne[0]);
    }
}
