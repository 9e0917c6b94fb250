package dev.inferd.speech.whisper;

/**
 * Whisper's mel filter bank: librosa's {@code filters.mel(sr=16000, n_fft=400, n_mels)} with Slaney's
 * mel scale and area normalisation, computed in double and rounded to float as Whisper stores it.
 */
public final class MelFilters {
    public static final int SAMPLE_RATE = 16_000;
    public static final int N_FFT = 400;
    public static final int BINS = N_FFT / 2 + 1;

    private static final double F_SP = 200.0 / 3;
    private static final double MIN_LOG_HZ = 1000;
    private static final double MIN_LOG_MEL = MIN_LOG_HZ / F_SP;
    private static final double LOG_STEP = Math.log(6.4) / 27;

    private MelFilters() {
    }

    /** {@code nMels x BINS}, row by row. */
    public static float[] of(int nMels) {
        double[] fft = new double[BINS];
        for (int i = 0; i < BINS; i++) fft[i] = (double) i * (SAMPLE_RATE / 2.0) / (BINS - 1);
        double maxMel = hzToMel(SAMPLE_RATE / 2.0);
        double[] melF = new double[nMels + 2];
        for (int i = 0; i < melF.length; i++) melF[i] = melToHz(maxMel * i / (nMels + 1));
        float[] out = new float[nMels * BINS];
        for (int m = 0; m < nMels; m++) {
            double lowerWidth = melF[m + 1] - melF[m], upperWidth = melF[m + 2] - melF[m + 1];
            double norm = 2.0 / (melF[m + 2] - melF[m]);
            for (int k = 0; k < BINS; k++) {
                double lower = -(melF[m] - fft[k]) / lowerWidth;
                double upper = (melF[m + 2] - fft[k]) / upperWidth;
                out[m * BINS + k] = (float) (Math.max(0, Math.min(lower, upper)) * norm);
            }
        }
        return out;
    }

    static double hzToMel(double hz) {
        return hz >= MIN_LOG_HZ ? MIN_LOG_MEL + Math.log(hz / MIN_LOG_HZ) / LOG_STEP : hz / F_SP;
    }

    static double melToHz(double mel) {
        return mel >= MIN_LOG_MEL ? MIN_LOG_HZ * Math.exp(LOG_STEP * (mel - MIN_LOG_MEL)) : F_SP * mel;
    }
}
