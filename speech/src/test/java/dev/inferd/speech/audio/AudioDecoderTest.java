package dev.inferd.speech.audio;

import dev.inferd.engine.Fixtures;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class AudioDecoderTest {
    private final AudioDecoder decoder = new AudioDecoder();

    @TempDir
    Path tmp;

    @Test
    void wavAt16kHzMonoIsItsSamplesScaledToOne() throws IOException {
        byte[] file = Files.readAllBytes(Fixtures.require("audio/jfk.wav"));
        short[] pcm = wavSamples(file);
        Audio audio = decoder.decode(file);
        assertThat(audio.samples()).hasSize(176_000).hasSize(pcm.length);
        for (int i = 0; i < pcm.length; i++) assertThat(audio.samples()[i]).isEqualTo(pcm[i] / 32768f);
    }

    @Test
    void stereoIsMixedToTheMeanOfItsChannels() throws IOException {
        byte[] file = Files.readAllBytes(Fixtures.require("audio/stereo_diarization.wav"));
        short[] pcm = wavSamples(file);
        Audio audio = decoder.decode(file);
        assertThat(audio.samples()).hasSize(pcm.length / 2);
        for (int i = 0; i < audio.samples().length; i++) {
            float mean = (pcm[2 * i] / 32768f + pcm[2 * i + 1] / 32768f) / 2;
            // the mean rounded to 16 bits, as Whisper's ffmpeg command writes it
            assertThat(audio.samples()[i]).isCloseTo(mean, within(0.5f / 32768 + 1e-7f));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jfk.mp3", "jfk.flac"})
    void compressedCopiesOfJfkDecodeToTheSameSpeech(String name) throws IOException {
        Audio reference = decoder.decode(Files.readAllBytes(Fixtures.require("audio/jfk.wav")));
        Audio audio = decoder.decode(Files.readAllBytes(Fixtures.require("audio/" + name)));
        assertThat(audio.seconds()).isCloseTo(11.0, within(0.15));
        assertThat(envelopeCorrelation(reference, audio)).isGreaterThan(0.9);
    }

    @ParameterizedTest
    @ValueSource(strings = {"multilingual_en_de.mp3", "simpletranscribe_test.mp3"})
    void mp3At24kHzIsResampledTo16kHz(String name) throws IOException {
        Audio audio = decoder.decode(Files.readAllBytes(Fixtures.require("audio/" + name)));
        assertThat(audio.seconds()).isGreaterThan(1);
        float peak = 0;
        for (float s : audio.samples()) peak = Math.max(peak, Math.abs(s));
        assertThat(peak).isBetween(0.01f, 1.01f);
    }

    @ParameterizedTest
    @ValueSource(strings = {"m4a", "mp4", "webm", "ogg"})
    void containersMadeByFfmpegDecodeToTheSameSpeech(String container) throws IOException {
        Audio reference = decoder.decode(Files.readAllBytes(Fixtures.require("audio/jfk.wav")));
        var target = switch (container) {
            case "m4a" -> Transcoder.Target.M4A;
            case "mp4" -> Transcoder.Target.MP4;
            case "webm" -> Transcoder.Target.WEBM;
            default -> Transcoder.Target.OGG;
        };
        var encoded = Transcoder.encode(reference, target, tmp);
        Assumptions.assumeTrue(encoded.isPresent(), "this FFmpeg build has no encoder for " + container + " among " + target.encoders());
        Audio audio = decoder.decode(encoded.get());
        assertThat(audio.seconds()).isCloseTo(11.0, within(0.1));
        assertThat(envelopeCorrelation(reference, audio)).isGreaterThan(0.9);
    }

    @Test
    void textIsNotAudioWhateverItsName() {
        byte[] text = "This is a text file, renamed to .mp3 by its owner.\n".repeat(50).getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> decoder.decode(text))
                .isInstanceOfSatisfying(InvalidAudioException.class,
                        e -> assertThat(e.reason()).isEqualTo(InvalidAudioException.Reason.UNDECODABLE))
                .hasMessageContaining("could not be decoded");
    }

    @Test
    void truncatedGarbageAfterAWavHeaderIsRefused() throws IOException {
        byte[] file = Files.readAllBytes(Fixtures.require("audio/jfk.wav"));
        byte[] headerOnly = Arrays.copyOf(file, 44);
        assertThatThrownBy(() -> decoder.decode(headerOnly)).isInstanceOf(InvalidAudioException.class);
    }

    @Test
    void emptyUploadIsRefused() {
        assertThatThrownBy(() -> decoder.decode(new byte[0]))
                .isInstanceOfSatisfying(InvalidAudioException.class,
                        e -> assertThat(e.reason()).isEqualTo(InvalidAudioException.Reason.EMPTY));
    }

    @Test
    void wavWithNoSamplesIsEmpty() {
        byte[] wav = wav(new short[0]);
        assertThatThrownBy(() -> new AudioDecoder().decode(wav))
                .isInstanceOfSatisfying(InvalidAudioException.class,
                        e -> assertThat(e.reason()).isIn(InvalidAudioException.Reason.EMPTY, InvalidAudioException.Reason.UNDECODABLE));
    }

    @Test
    void audioOverTheMaximumDurationIsRefused() {
        byte[] wav = wav(new short[16_000 * 3]);
        assertThat(new AudioDecoder(Duration.ofSeconds(3)).decode(wav).samples()).hasSize(48_000);
        assertThatThrownBy(() -> new AudioDecoder(Duration.ofSeconds(2)).decode(wav))
                .isInstanceOfSatisfying(InvalidAudioException.class,
                        e -> assertThat(e.reason()).isEqualTo(InvalidAudioException.Reason.TOO_LONG))
                .hasMessageContaining("2 seconds");
    }

    @Test
    void decodesConcurrently() throws Exception {
        byte[] file = Files.readAllBytes(Fixtures.require("audio/LDC93S1.wav"));
        int expected = decoder.decode(file).samples().length;
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(4)) {
            var results = pool.invokeAll(java.util.Collections.nCopies(16, () -> decoder.decode(file).samples().length));
            for (var r : results) assertThat(r.get()).isEqualTo(expected);
        }
    }

    /** Correlation of the two clips' loudness in 100 ms windows: the same speech, whatever the codec did to the waveform. */
    static double envelopeCorrelation(Audio a, Audio b) {
        double[] x = envelope(a.samples()), y = envelope(b.samples());
        int n = Math.min(x.length, y.length);
        double mx = 0, my = 0;
        for (int i = 0; i < n; i++) { mx += x[i]; my += y[i]; }
        mx /= n; my /= n;
        double sxy = 0, sxx = 0, syy = 0;
        for (int i = 0; i < n; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
            syy += (y[i] - my) * (y[i] - my);
        }
        return sxy / Math.sqrt(sxx * syy);
    }

    private static double[] envelope(float[] s) {
        int w = 1600;
        double[] e = new double[s.length / w];
        for (int i = 0; i < e.length; i++) {
            double sum = 0;
            for (int j = 0; j < w; j++) sum += s[i * w + j] * s[i * w + j];
            e[i] = Math.sqrt(sum / w);
        }
        return e;
    }

    static short[] wavSamples(byte[] file) {
        var b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        int pos = 12;
        while (pos + 8 <= file.length) {
            int id = b.getInt(pos), size = b.getInt(pos + 4);
            if (id == 0x61746164) { // "data"
                short[] out = new short[size / 2];
                b.position(pos + 8);
                b.asShortBuffer().get(out);
                return out;
            }
            pos += 8 + size + (size & 1);
        }
        throw new IllegalArgumentException("no data chunk");
    }

    static byte[] wav(short[] pcm) {
        var b = ByteBuffer.allocate(44 + pcm.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0x46464952).putInt(36 + pcm.length * 2).putInt(0x45564157);
        b.putInt(0x20746d66).putInt(16).putShort((short) 1).putShort((short) 1).putInt(16_000).putInt(32_000)
                .putShort((short) 2).putShort((short) 16);
        b.putInt(0x61746164).putInt(pcm.length * 2);
        for (short s : pcm) b.putShort(s);
        return b.array();
    }
}
