package dev.inferd.speech.whisper;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.speech.audio.AudioDecoder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CancellationException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TranscriberTest {
    @TempDir
    static Path tmp;
    static WhisperModel model;

    @BeforeAll
    static void writeModel() throws IOException {
        model = WhisperModel.open(new SyntheticWhisper.Spec(SyntheticWhisperTest.MICRO, GGMLType.Q8_0, 5, 1.0f).write(tmp.resolve("micro.bin")));
    }

    @AfterAll
    static void close() {
        if (model != null) model.close();
    }

    /** Slow: a random model fills its window with 220 tokens. */
    @Test
    @Tag("slow")
    void segmentsAreOrderedWithinTheAudioAndCarryTheirFigures() throws IOException {
        float[] samples = new AudioDecoder().decode(Files.readAllBytes(Fixtures.require("audio/LDC93S1.wav"))).samples();
        var t = model.newTranscriber().transcribe(samples, TranscriptionOptions.defaults().withFallback(false));
        assertThat(Languages.byCode(t.language())).isPresent();
        assertThat(t.duration()).isEqualTo(samples.length / 16_000.0);
        assertThat(t.segments()).isNotEmpty();
        double previousEnd = 0;
        for (var s : t.segments()) {
            assertThat(s.start()).isGreaterThanOrEqualTo(0).isLessThanOrEqualTo(s.end());
            assertThat(s.end()).isLessThanOrEqualTo(t.duration());
            assertThat(s.start()).isGreaterThanOrEqualTo(previousEnd - 1e-9);
            assertThat(s.tokens()).isNotEmpty();
            assertThat(s.avgLogprob()).isFinite().isLessThanOrEqualTo(0);
            assertThat(s.noSpeechProb()).isBetween(0.0, 1.0);
            assertThat(s.compressionRatio()).isPositive();
            previousEnd = s.end();
        }
        assertThat(t.text()).isEqualTo(t.text().strip()).isNotEmpty();
    }

    /** Slow: as above. */
    @Test
    @Tag("slow")
    void wordsAreOrderedWithinTheirSegmentsAndCoverTheText() throws IOException {
        float[] samples = new AudioDecoder().decode(Files.readAllBytes(Fixtures.require("audio/LDC93S1.wav"))).samples();
        var t = model.newTranscriber().transcribe(samples,
                TranscriptionOptions.defaults().withLanguage("en").withFallback(false).withWordTimestamps(true));
        assertThat(t.words()).isNotEmpty();
        double previousEnd = 0;
        int segment = 0;
        for (var w : t.words()) {
            assertThat(w.word()).isNotBlank().doesNotStartWith(" ");
            assertThat(w.start()).isGreaterThanOrEqualTo(previousEnd).isLessThanOrEqualTo(w.end());
            assertThat(w.end()).isLessThanOrEqualTo(t.duration());
            while (segment < t.segments().size() && w.start() > t.segments().get(segment).end()) segment++;
            assertThat(segment).as("the segment of " + w).isLessThan(t.segments().size());
            assertThat(w.start()).isGreaterThanOrEqualTo(t.segments().get(segment).start());
            previousEnd = w.end();
        }
        var words = String.join("", t.words().stream().map(Transcript.Word::word).toList());
        assertThat(words).isEqualTo(t.text().replace(" ", ""));
        // the alignment moves along the audio: the words do not all sit at one instant
        assertThat(t.words().getLast().end()).isGreaterThan(t.words().getFirst().start());
    }

    @Test
    void aCancelledTranscriptionStops() {
        float[] samples = new float[16_000 * 5];
        assertThatThrownBy(() -> model.newTranscriber().transcribe(samples, TranscriptionOptions.defaults().withLanguage("en"), () -> true))
                .isInstanceOf(CancellationException.class);
    }

    @Test
    void repetitiveTextCompressesWell() {
        assertThat(Transcriber.compressionRatio(" the the the the the the the the the the the the the the the the")).isGreaterThan(2.4);
        assertThat(Transcriber.compressionRatio(" And so my fellow Americans, ask not what your country can do for you.")).isLessThan(2.4);
    }
}
