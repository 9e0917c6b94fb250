package dev.inferd.speech.whisper;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.speech.audio.AudioDecoder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Language detection and the temperature fallback, on synthetic models arranged so that each rule has
 * something to decide. Slow: each decodes whole windows of a random model.
 */
@Tag("slow")
class DecodingRulesTest {
    static final WhisperShape MICRO = SyntheticWhisperTest.MICRO;

    @TempDir
    Path tmp;

    /**
     * The token embedding's row of a language's token (German, or French when German already wins)
     * is made three times the row of the token that wins after start-of-transcript on this clip: that
     * language's logit is three times the largest, so it is detected, and a transcription without a
     * language reports it.
     */
    @Test
    void theLikeliestLanguageTokenIsDetectedWhenNoLanguageIsGiven() throws IOException {
        float[] samples = clip(1.5);
        Path file = new SyntheticWhisper.Spec(MICRO, GGMLType.F32, 11, 1.0f).write(tmp.resolve("micro.bin"));
        int winner;
        String before;
        long rowBytes = 4L * MICRO.nState();
        long embedding;
        int target;
        String targetCode;
        try (var model = WhisperModel.open(file)) {
            before = model.newTranscriber().detectLanguage(samples);
            var encoder = new WhisperEncoder(model.layers());
            var decoder = new WhisperDecoder(model.layers());
            decoder.setAudio(encoder.encode(model.logMel().compute(samples).window(0, new float[MICRO.nMels() * LogMel.WINDOW_FRAMES])));
            float[] logits = decoder.decode(new int[]{model.tokenizer().specials().startOfTranscript()}, 1);
            winner = 0;
            for (int i = 1; i < logits.length; i++) if (logits[i] > logits[winner]) winner = i;
            assertThat(logits[winner]).isPositive();
            targetCode = before.equals("de") ? "fr" : "de";
            target = model.tokenizer().specials().language(Languages.byCode(targetCode).orElseThrow().index());
            try (var f = WhisperModelFile.open(file)) {
                embedding = f.tensor("decoder.token_embedding.weight").offset();
            }
        }
        try (var ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            var row = ByteBuffer.allocate((int) rowBytes).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(row, embedding + winner * rowBytes);
            row.flip();
            var scaled = ByteBuffer.allocate((int) rowBytes).order(ByteOrder.LITTLE_ENDIAN);
            while (row.hasRemaining()) scaled.putFloat(3 * row.getFloat());
            scaled.flip();
            ch.write(scaled, embedding + target * rowBytes);
        }
        try (var model = WhisperModel.open(file)) {
            var transcriber = model.newTranscriber();
            assertThat(transcriber.detectLanguage(samples)).isEqualTo(targetCode);
            var t = transcriber.transcribe(samples, TranscriptionOptions.defaults().withFallback(false));
            assertThat(t.language()).isEqualTo(targetCode);
            assertThat(t.languageName()).isEqualTo(targetCode.equals("de") ? "german" : "french");
        }
    }

    /**
     * With a flat token embedding every token is about as likely as any other: greedy decoding's
     * average log-probability is far under -1, so the window is decoded again at higher temperatures,
     * and the segments carry the temperature that was kept.
     */
    @Test
    void aWindowThatFailsTheLogProbabilityThresholdIsRetriedHotter() throws IOException {
        // 3 s: the first timestamp (at most 1 s) cannot end the window, so every attempt decodes some text
        float[] samples = clip(3);
        Path file = new SyntheticWhisper.Spec(MICRO, GGMLType.F16, 5, 0.001f).write(tmp.resolve("flat.bin"));
        try (var model = WhisperModel.open(file)) {
            var greedy = model.newTranscriber().transcribe(samples, TranscriptionOptions.defaults().withLanguage("en").withFallback(false));
            assertThat(greedy.segments()).isNotEmpty().allSatisfy(s -> {
                assertThat(s.temperature()).isZero();
                assertThat(s.avgLogprob()).isLessThan(TranscriptionOptions.LOGPROB_THRESHOLD);
            });
            var withFallback = model.newTranscriber().transcribe(samples, TranscriptionOptions.defaults().withLanguage("en"));
            assertThat(withFallback.segments()).isNotEmpty();
            assertThat(withFallback.segments().getFirst().temperature()).isGreaterThan(0);
        }
    }

    private static float[] clip(double seconds) throws IOException {
        float[] jfk = new AudioDecoder().decode(Files.readAllBytes(Fixtures.require("audio/jfk.wav"))).samples();
        return Arrays.copyOf(jfk, (int) (seconds * 16_000));
    }
}
