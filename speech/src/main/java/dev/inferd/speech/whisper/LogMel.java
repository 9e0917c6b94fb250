package dev.inferd.speech.whisper;

import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.tensor.WeightMatrix;

import java.lang.foreign.MemorySegment;

/**
 * Whisper's log-mel spectrogram: a short-time Fourier transform of 400 samples (25 ms) every 160
 * (10 ms) under a periodic Hann window, the audio reflected by 200 samples at the start and followed
 * by 30 s of silence (as Whisper's {@code transcribe} pads it); power spectra through the mel
 * filters; {@code log10} of at least 1e-10, floored at the maximum minus 8, then {@code (x + 4) / 4}.
 *
 * <p>The DFT of a frame is a product with a {@code 402 x 400} matrix (cosines and sines with the
 * window folded in), so all frames go through the engine's tiled matrix product at once.
 */
public final class LogMel {
    public static final int HOP = 160;
    /** Frames in one 30 s window. */
    public static final int WINDOW_FRAMES = 3000;
    private static final int PAD = MelFilters.N_FFT / 2;
    private static final int CHUNK = 1024;

    private final int nMels;
    private final WeightMatrix dft;
    private final WeightMatrix filters;

    public LogMel(int nMels, float[] filterBank) {
        if (filterBank.length != nMels * MelFilters.BINS) {
            throw new IllegalArgumentException("a filter bank of " + nMels + " mels has " + nMels * MelFilters.BINS + " weights, got " + filterBank.length);
        }
        this.nMels = nMels;
        int n = MelFilters.N_FFT;
        float[] table = new float[2 * MelFilters.BINS * n];
        for (int k = 0; k < MelFilters.BINS; k++) {
            for (int t = 0; t < n; t++) {
                double window = 0.5 - 0.5 * Math.cos(2 * Math.PI * t / n);
                double angle = 2 * Math.PI * (((long) k * t) % n) / n;
                table[k * n + t] = (float) (window * Math.cos(angle));
                table[(MelFilters.BINS + k) * n + t] = (float) (-window * Math.sin(angle));
            }
        }
        dft = WeightMatrices.of(GGMLType.F32, 2 * MelFilters.BINS, n, MemorySegment.ofArray(table));
        filters = WeightMatrices.of(GGMLType.F32, nMels, MelFilters.BINS, MemorySegment.ofArray(filterBank.clone()));
    }

    public LogMel(int nMels) {
        this(nMels, MelFilters.of(nMels));
    }

    public int nMels() { return nMels; }

    /**
     * The spectrogram of {@code samples} (16 kHz mono) followed by 30 s of silence: {@code frames x nMels},
     * frame by frame, with {@code frames = (samples.length + 480000) / 160}.
     */
    public Spectrogram compute(float[] samples) {
        int total = samples.length + WINDOW_FRAMES * HOP;
        int frames = total / HOP;
        float[] padded = new float[total + 2 * PAD];
        // reflect the first 200 samples, as torch.stft(center=True) does; the end is silence either way
        for (int i = 0; i < PAD; i++) padded[PAD - 1 - i] = i + 1 < samples.length ? samples[i + 1] : 0;
        System.arraycopy(samples, 0, padded, PAD, samples.length);
        float[] mel = new float[Math.multiplyExact(frames, nMels)];
        float[] frame = new float[CHUNK * MelFilters.N_FFT];
        float[] spectrum = new float[CHUNK * 2 * MelFilters.BINS];
        float[] power = new float[CHUNK * MelFilters.BINS];
        float[] melChunk = new float[CHUNK * nMels];
        for (int start = 0; start < frames; start += CHUNK) {
            int count = Math.min(CHUNK, frames - start);
            for (int f = 0; f < count; f++) {
                System.arraycopy(padded, (start + f) * HOP, frame, f * MelFilters.N_FFT, MelFilters.N_FFT);
            }
            dft.multiply(frame, count, spectrum, count);
            for (int f = 0; f < count; f++) {
                int base = f * 2 * MelFilters.BINS;
                for (int k = 0; k < MelFilters.BINS; k++) {
                    float re = spectrum[base + k], im = spectrum[base + MelFilters.BINS + k];
                    power[f * MelFilters.BINS + k] = re * re + im * im;
                }
            }
            filters.multiply(power, count, melChunk, count);
            System.arraycopy(melChunk, 0, mel, start * nMels, count * nMels);
        }
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < mel.length; i++) {
            mel[i] = (float) Math.log10(Math.max(mel[i], 1e-10f));
            max = Math.max(max, mel[i]);
        }
        float floor = max - 8;
        for (int i = 0; i < mel.length; i++) mel[i] = (Math.max(mel[i], floor) + 4) / 4;
        return new Spectrogram(mel, frames, nMels, samples.length / HOP);
    }

    /**
     * A log-mel spectrogram, {@code frames x nMels} frame by frame; {@code contentFrames} of them hold
     * the audio, the rest the silence after it.
     */
    public record Spectrogram(float[] values, int frames, int nMels, int contentFrames) {

        /** Frames {@code [start, start + 3000)} as the encoder reads them ({@code nMels x 3000}, mel by mel), zeros past the end. */
        public float[] window(int start, float[] out) {
            java.util.Arrays.fill(out, 0, nMels * WINDOW_FRAMES, 0);
            int n = Math.min(WINDOW_FRAMES, frames - start);
            for (int f = 0; f < n; f++) {
                int src = (start + f) * nMels;
                for (int m = 0; m < nMels; m++) out[m * WINDOW_FRAMES + f] = values[src + m];
            }
            return out;
        }
    }
}
