package dev.inferd.speech.whisper;

import dev.inferd.engine.Fixtures;
import dev.inferd.speech.audio.AudioDecoder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class LogMelTest {

    @ParameterizedTest
    @ValueSource(ints = {80, 128})
    void filterBanksEqualWhispers(int nMels) throws IOException {
        float[] expected = Npz.read(Fixtures.require("whisper/mel_filters.npz")).get("mel_" + nMels);
        float[] ours = MelFilters.of(nMels);
        assertThat(ours).hasSize(expected.length).hasSize(nMels * 201);
        for (int i = 0; i < ours.length; i++) assertThat(ours[i]).as("weight %d", i).isCloseTo(expected[i], within(1e-6f));
    }

    @Test
    void spectrogramOfSpeechMatchesADirectDoublePrecisionComputation() throws IOException {
        float[] samples = new AudioDecoder().decode(Files.readAllBytes(Fixtures.require("audio/LDC93S1.wav"))).samples();
        var mel = new LogMel(80).compute(samples);
        assertThat(mel.frames()).isEqualTo((samples.length + 480_000) / 160);
        assertThat(mel.contentFrames()).isEqualTo(samples.length / 160);
        double[][] reference = reference(samples, 80, mel.frames());
        double worst = 0;
        for (int f = 0; f < mel.frames(); f++) {
            for (int m = 0; m < 80; m++) worst = Math.max(worst, Math.abs(reference[f][m] - mel.values()[f * 80 + m]));
        }
        assertThat(worst).isLessThan(1e-4);
        // silence after the speech sits at the floor: (max - 8 + 4) / 4
        float last = mel.values()[(mel.frames() - 1) * 80];
        assertThat(mel.values()[(mel.frames() - 1) * 80 + 40]).isEqualTo(last);
    }

    @Test
    void windowsAreMelByMelAndZeroPastTheEnd() {
        float[] samples = new float[16_000];
        for (int i = 0; i < samples.length; i++) samples[i] = (float) Math.sin(i * 0.3);
        var mel = new LogMel(80).compute(samples);
        float[] window = mel.window(0, new float[80 * 3000]);
        assertThat(window[5 * 3000 + 7]).isEqualTo(mel.values()[7 * 80 + 5]);
        float[] late = mel.window(mel.frames() - 10, new float[80 * 3000]);
        assertThat(late[3 * 3000 + 9]).isEqualTo(mel.values()[(mel.frames() - 1) * 80 + 3]);
        assertThat(late[3 * 3000 + 10]).isZero();
    }

    /** Whisper's definition, term by term in double precision. */
    private static double[][] reference(float[] samples, int nMels, int frames) {
        int n = 400;
        float[] filters = MelFilters.of(nMels);
        double[] padded = new double[samples.length + 480_000 + n];
        for (int i = 0; i < 200; i++) padded[199 - i] = samples[i + 1];
        for (int i = 0; i < samples.length; i++) padded[200 + i] = samples[i];
        double[][] out = new double[frames][nMels];
        double max = Double.NEGATIVE_INFINITY;
        double[] power = new double[201];
        double[][] cos = new double[201][n], sin = new double[201][n];
        double[] hann = new double[n];
        for (int t = 0; t < n; t++) hann[t] = 0.5 - 0.5 * Math.cos(2 * Math.PI * t / n);
        for (int k = 0; k < 201; k++) {
            for (int t = 0; t < n; t++) {
                cos[k][t] = Math.cos(2 * Math.PI * k * t / n);
                sin[k][t] = Math.sin(2 * Math.PI * k * t / n);
            }
        }
        for (int f = 0; f < frames; f++) {
            for (int k = 0; k < 201; k++) {
                double re = 0, im = 0;
                for (int t = 0; t < n; t++) {
                    double x = padded[f * 160 + t] * hann[t];
                    re += x * cos[k][t];
                    im -= x * sin[k][t];
                }
                power[k] = re * re + im * im;
            }
            for (int m = 0; m < nMels; m++) {
                double s = 0;
                for (int k = 0; k < 201; k++) s += filters[m * 201 + k] * power[k];
                out[f][m] = Math.log10(Math.max(s, 1e-10));
                max = Math.max(max, out[f][m]);
            }
            if (f > samples.length / 160 + 3) {
                // silence from here on: the same as the frame before
                for (int g = f + 1; g < frames; g++) out[g] = out[f].clone();
                break;
            }
        }
        for (double[] row : out) for (int m = 0; m < nMels; m++) row[m] = (Math.max(row[m], max - 8) + 4) / 4;
        return out;
    }
}
