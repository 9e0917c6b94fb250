package dev.inferd.speech.audio;

/** Mono audio at {@link #SAMPLE_RATE} Hz as floats in [-1, 1]: what Whisper listens to. */
public record Audio(float[] samples) {
    public static final int SAMPLE_RATE = 16_000;

    public double seconds() {
        return samples.length / (double) SAMPLE_RATE;
    }
}
